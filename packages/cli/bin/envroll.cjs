#!/usr/bin/env node
/**
 * The `envroll` command. Runs the built JavaScript (dist/, from `npm run build`, which `npm ci`
 * runs as `prepare`) when this package, the engine and the library were all built from the
 * sources now in their src/; otherwise the TypeScript sources through tsx, so a source edit
 * never runs stale and a checkout that was never built still works. ENVROLL_FROM_SOURCE=1
 * forces the sources.
 *
 * CommonJS, as is everything up to the bundle's first line (dist/load.cjs, main.cjs): starting
 * from an ES module made Node set up its ES-module loader (resolve, load, link per module)
 * before envroll ran a line; a built eval now reaches its first model call without it.
 * bin/envroll.mjs runs this file.
 */
"use strict";
const { join } = require("node:path");
// By absolute path: see v8-flags.cjs on what may run before it.
require(join(__dirname, "v8-flags.cjs"));
const { readFileSync } = require("node:fs");

const fromSource = process.env.ENVROLL_FROM_SOURCE === "1";
const cliDir = join(__dirname, "..");

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
 * workspace links node_modules/envroll and @envroll/engine to them), found without a package
 * lookup (resolving through a package's `exports` loads part of Node's ES-module loader); an
 * installed CLI resolves them.
 */
const [coreDir, engineDir] = Object.entries({ envroll: "core", "@envroll/engine": "engine" }).map(
  ([name, folder]) =>
    packageAt(join(cliDir, "..", folder), name) ?? join(require.resolve(`${name}/package.json`), ".."),
);

// The bundle (dist/main.cjs) and its code cache are read on libuv's threads while the stamps
// below are checked; dist/load.cjs takes the reads.
if (!fromSource)
  globalThis[Symbol.for("envroll.cli.reads")] = require(join(__dirname, "code-cache.cjs")).prefetch(
    require(join(coreDir, "cache-dir.cjs")),
  );

const { builtIsCurrent } = require(join(coreDir, "build-stamp.cjs"));
if (!fromSource && [coreDir, engineDir, cliDir].every(builtIsCurrent)) {
  require("../dist/load.cjs");
} else {
  (async () => {
    const { register: registerTsx } = await import("tsx/esm/api");
    registerTsx();
    // Package entries (`import … from "envroll"` in a taskset) resolve to src/ as well.
    require("node:module").register("./source-conditions.mjs", require("node:url").pathToFileURL(__filename));
    await import("../src/main.ts");
  })().catch((e) => {
    process.exitCode = 1;
    console.error(e);
  });
}
