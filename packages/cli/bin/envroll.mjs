#!/usr/bin/env node
/**
 * The `envroll` command. Runs the built JavaScript (dist/, from `npm run build`, which `npm ci`
 * runs as `prepare`) when this package, the engine and the library were all built from the
 * sources now in their src/; otherwise the TypeScript sources through tsx, so a source edit
 * never runs stale and a checkout that was never built still works. ENVROLL_FROM_SOURCE=1
 * forces the sources.
 */
import "./v8-flags.mjs";
import { readFileSync } from "node:fs";
import { register } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { builtIsCurrent } from "envroll/build-stamp.mjs";
import { readWhole } from "envroll/cache-dir.mjs";

// The bundle (dist/main.cjs, 2.5 MB) is read on a libuv thread while the stamps below are
// checked; dist/main.js takes the bytes (undefined when unreadable: it reads again and fails).
if (process.env.ENVROLL_FROM_SOURCE !== "1")
  globalThis[Symbol.for("envroll.cli.bundle")] = readWhole(
    fileURLToPath(new URL("../dist/main.cjs", import.meta.url)),
  );

const cliDir = fileURLToPath(new URL("../", import.meta.url));

/** The folder of package `name` when it is `dir` (its package.json says so), else null. */
function packageAt(dir, name) {
  try {
    return JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).name === name ? dir : null;
  } catch {
    return null;
  }
}

/**
 * The library's and the engine's folders. In this repository they are the CLI's siblings (the
 * workspace links node_modules/envroll and @envroll/engine to them), read without the ESM
 * resolver, whose two package lookups were ~3% of the CLI's start-up; an installed CLI
 * resolves them.
 */
function packageDirs() {
  const names = { envroll: "core", "@envroll/engine": "engine" };
  return Object.entries(names).map(
    ([name, folder]) =>
      packageAt(join(cliDir, "..", folder), name) ??
      fileURLToPath(new URL(".", import.meta.resolve(`${name}/package.json`))),
  );
}

if (process.env.ENVROLL_FROM_SOURCE !== "1" && [...packageDirs(), cliDir].every(builtIsCurrent)) {
  await import("../dist/main.js");
} else {
  const { register: registerTsx } = await import("tsx/esm/api");
  registerTsx();
  // Package entries (`import … from "envroll"` in a taskset) resolve to src/ as well.
  register("./source-conditions.mjs", import.meta.url);
  await import("../src/main.ts");
}
