/** Writes `text` to a file called `name` in a fresh temporary folder (named from `prefix`) and returns its path. */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export function tempFile(prefix: string, name: string, text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), prefix)), name);
  writeFileSync(path, text);
  return path;
}
