/**
 * The shipped reverse-text prompts (data/reverse-text/, see its README for provenance) or a
 * user's JSONL with a `prompt` column — the shape of the hub dataset the reference reads.
 */
import { readFile } from "node:fs/promises";
import { coreDataPath } from "../../package-root.ts";

export type Split = "train" | "test";

export function builtinDatasetPath(split: Split): string {
  return coreDataPath("reverse-text", `${split}.jsonl`);
}

/** Reads `{"prompt": string}` rows; a malformed line is an error naming its line number. */
export async function readPrompts(path: string): Promise<string[]> {
  const text = await readFile(path, "utf8");
  const prompts: string[] = [];
  text.split("\n").forEach((line, i) => {
    if (line.trim() === "") return;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch (e) {
      throw new Error(`${path}:${i + 1}: invalid JSON (${(e as Error).message})`);
    }
    const prompt = (row as { prompt?: unknown } | null)?.prompt;
    if (typeof prompt !== "string") throw new Error(`${path}:${i + 1}: expected {"prompt": string}`);
    prompts.push(prompt);
  });
  return prompts;
}
