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

/**
 * Reads `{"prompt": string}` rows (the first `limit` of them); a malformed line is an error
 * naming its line number. Lines past the limit are not parsed: a short eval reads one or a few
 * of the 2,400 shipped rows.
 */
export async function readPrompts(path: string, limit: number | null = null): Promise<string[]> {
  const text = await readFile(path, "utf8");
  const prompts: string[] = [];
  let start = 0;
  for (let i = 0; start < text.length && (limit === null || prompts.length < limit); i++) {
    const nl = text.indexOf("\n", start);
    const end = nl === -1 ? text.length : nl;
    const line = text.slice(start, end);
    start = end + 1;
    if (line.trim() === "") continue;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch (e) {
      throw new Error(`${path}:${i + 1}: invalid JSON (${(e as Error).message})`);
    }
    const prompt = (row as { prompt?: unknown } | null)?.prompt;
    if (typeof prompt !== "string") throw new Error(`${path}:${i + 1}: expected {"prompt": string}`);
    prompts.push(prompt);
  }
  return prompts;
}
