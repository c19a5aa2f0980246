/**
 * The golden fixtures live in `shared/` beside the repository (`../shared` from its root), both
 * here and in CI's fresh clone; `ENVROLL_SHARED_DIR` overrides that for other layouts.
 */
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const SHARED_DIR = process.env.ENVROLL_SHARED_DIR ?? resolve(REPO_ROOT, "../shared");

export function sharedFixturePath(name: string): string {
  return join(SHARED_DIR, "fixtures", name);
}

export function readSharedFixture(name: string): any {
  return JSON.parse(readFileSync(sharedFixturePath(name), "utf8"));
}
