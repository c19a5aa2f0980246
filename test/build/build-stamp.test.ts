/** The check the bin and the built package entries make before running dist/: built from these sources? */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import {
  assertBuiltIsCurrent,
  builtIsCurrent,
  STAMP_FILE,
  sourceStamp,
} from "../../packages/core/build-stamp.mjs";

function fakePackage(root: string): string {
  mkdirSync(join(root, "src", "sub"), { recursive: true });
  mkdirSync(join(root, "dist"), { recursive: true });
  writeFileSync(join(root, "src", "a.ts"), "export const a = 1;\n");
  writeFileSync(join(root, "src", "sub", "b.json"), "{}\n");
  return root;
}

const stampNow = (dir: string) => writeFileSync(join(dir, STAMP_FILE), sourceStamp(dir));

test("a build counts as current only for the exact sources it was built from", (t) => {
  const base = mkdtempSync(join(tmpdir(), "envroll-stamp-"));
  t.after(() => rmSync(base, { recursive: true, force: true }));
  const dir = fakePackage(join(base, "pkg"));
  assert.equal(builtIsCurrent(dir), false, "never built");
  stampNow(dir);
  assert.equal(builtIsCurrent(dir), true);

  writeFileSync(join(dir, "src", "a.ts"), "export const a = 22;\n");
  assert.equal(builtIsCurrent(dir), false, "an edited source");
  stampNow(dir);
  const later = new Date(Date.now() + 5_000);
  utimesSync(join(dir, "src", "a.ts"), later, later);
  assert.equal(builtIsCurrent(dir), false, "same size, touched (a checkout rewrites files)");
  stampNow(dir);
  writeFileSync(join(dir, "src", "c.ts"), "export {};\n");
  assert.equal(builtIsCurrent(dir), false, "an added source");
  stampNow(dir);
  rmSync(join(dir, "src", "sub", "b.json"));
  assert.equal(builtIsCurrent(dir), false, "a removed asset");
  stampNow(dir);
  assert.equal(builtIsCurrent(dir), true);
  assert.doesNotThrow(() => assertBuiltIsCurrent(`file://${join(dir, "dist", "index.js")}`));
  writeFileSync(join(dir, "src", "a.ts"), "export const a = 333;\n");
  assert.throws(
    () => assertBuiltIsCurrent(`file://${join(dir, "dist", "index.js")}`),
    /dist was built from other sources than .*src: run `npm run build`/,
  );
});

test("an installed copy (under node_modules) runs its dist/ as published", (t) => {
  const base = mkdtempSync(join(tmpdir(), "envroll-stamp-"));
  t.after(() => rmSync(base, { recursive: true, force: true }));
  const dir = fakePackage(join(base, "node_modules", "envroll"));
  assert.equal(builtIsCurrent(dir), false, "no stamp: nothing was built");
  writeFileSync(join(dir, STAMP_FILE), "built elsewhere\n");
  assert.equal(builtIsCurrent(dir), true);
});
