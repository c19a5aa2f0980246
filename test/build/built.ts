/** For tests of the built packages: builds dist/ first when it is missing or older than src/. */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { builtIsCurrent } from "../../packages/core/build-stamp.mjs";
import { ROOT } from "../cli/cli-helpers.ts";

/** The built CLI's entry (the bundle's loader). */
export const MAIN = join(ROOT, "packages", "cli", "dist", "load.cjs");

export function ensureBuilt(): void {
  if (["packages/core", "packages/engine", "packages/cli"].every((d) => builtIsCurrent(join(ROOT, d))))
    return;
  const r = spawnSync(process.execPath, [join(ROOT, "scripts", "build.mjs")], {
    cwd: ROOT,
    encoding: "utf8",
  });
  assert.equal(r.status, 0, r.stderr);
}
