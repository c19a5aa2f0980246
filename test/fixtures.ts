/**
 * The golden files the tests compare against: all in test/fixtures/, written by
 * test/fixtures/generate.py (see test/fixtures/README.md for what each holds and where it came from).
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseJsonKeepingFloats } from "../packages/core/src/text/py-json.ts";

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const FIXTURES_DIR = join(REPO_ROOT, "test", "fixtures");

/** Absolute path of a fixture; throws, naming the file and how to make it, when it is absent. */
export function fixturePath(name: string, dir: string = FIXTURES_DIR): string {
  const path = join(dir, name);
  if (!existsSync(path)) {
    throw new Error(
      `missing golden fixture ${relative(REPO_ROOT, path)}: restore it from git or regenerate it with ` +
        "`node scripts/py-env.mjs && .venv/bin/python test/fixtures/generate.py` (test/fixtures/README.md)",
    );
  }
  return path;
}

export function readFixture(name: string, dir?: string): any {
  return JSON.parse(readFileSync(fixturePath(name, dir), "utf8"));
}

/** As readFixture, keeping `1.0` distinct from `1` (Python floats in tool arguments). */
export function readFixtureKeepingFloats(name: string, dir?: string): any {
  return parseJsonKeepingFloats(readFileSync(fixturePath(name, dir), "utf8"));
}
