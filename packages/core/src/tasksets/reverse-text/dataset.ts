/**
 * The shipped reverse-text prompts (data/reverse-text/, see its README for provenance) or a
 * user's JSONL with a `prompt` column — the shape of the hub dataset the reference reads.
 */
import { open } from "node:fs/promises";
import { coreDataPath } from "../../package-root.ts";

export type Split = "train" | "test";

export function builtinDatasetPath(split: Split): string {
  return coreDataPath("reverse-text", `${split}.jsonl`);
}

/**
 * The file's lines, decoded one by one as 64 KiB chunks arrive (a newline byte never sits inside
 * a UTF-8 sequence, so each line decodes as it would in the whole text), so a caller that stops
 * early reads and decodes only the start of the file.
 */
async function* fileLines(path: string): AsyncGenerator<string> {
  const file = await open(path, "r");
  try {
    const chunk = Buffer.allocUnsafe(64 * 1024);
    let rest: Buffer = Buffer.alloc(0);
    for (;;) {
      const { bytesRead } = await file.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      const data =
        rest.length === 0
          ? chunk.subarray(0, bytesRead)
          : Buffer.concat([rest, chunk.subarray(0, bytesRead)]);
      let start = 0;
      for (let nl = data.indexOf(10); nl !== -1; nl = data.indexOf(10, start)) {
        yield data.toString("utf8", start, nl);
        start = nl + 1;
      }
      rest = Buffer.from(data.subarray(start)); // `chunk` is read into again
    }
    if (rest.length > 0) yield rest.toString("utf8");
  } finally {
    await file.close();
  }
}

/**
 * Reads `{"prompt": string}` rows (the first `limit` of them); a malformed line is an error
 * naming its line number. Lines past the limit are neither parsed nor read: a short eval reads
 * one or a few of the 2,400 shipped rows, and decoding all of train.jsonl (550 KB) was ~5% of
 * the CLI's CPU to its first rollout.
 */
export async function readPrompts(path: string, limit: number | null = null): Promise<string[]> {
  const prompts: string[] = [];
  let i = 0;
  for await (const line of fileLines(path)) {
    if (prompts.length === limit) break;
    i++;
    if (line.trim() === "") continue;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch (e) {
      throw new Error(`${path}:${i}: invalid JSON (${(e as Error).message})`);
    }
    const prompt = (row as { prompt?: unknown } | null)?.prompt;
    if (typeof prompt !== "string") throw new Error(`${path}:${i}: expected {"prompt": string}`);
    prompts.push(prompt);
  }
  return prompts;
}
