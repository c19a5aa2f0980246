/**
 * packages/cli/dist/load.cjs (copied there by scripts/bundle-cli.mjs): runs the CLI's bundle,
 * main.cjs, compiled through V8's code cache (bin/code-cache.cjs). The bin has started reading
 * both files before its build-stamp check; run directly, this reads them itself.
 */
"use strict";
const { join } = require("node:path");
// By absolute path: see v8-flags.cjs on what may run before it.
require(join(__dirname, "../bin/v8-flags.cjs"));
const { readFileSync } = require("node:fs");
const { createRequire } = require("node:module");
const vm = require("node:vm");
const { BUNDLE, prefetch, writeCache } = require(join(__dirname, "../bin/code-cache.cjs"));

// Code run by a vm.Script may not call import() without an experimental flag, and CommonJS has
// no import.meta: the bundle imports (user modules, tsx) through this module, which sits in the
// same folder, so what it gets is what it would get itself; and it resolves as an ES module
// would through resolve.mjs beside it, loaded on first use (only a user module or the
// openai-agents harness asks, so an eval of a built-in environment never starts Node's
// ES-module loader).
globalThis[Symbol.for("envroll.cli.resolve")] = (specifier) =>
  import("./resolve.mjs").then((m) => m.resolve(specifier));
globalThis[Symbol.for("envroll.cli.import")] = (specifier) => import(specifier);

/** Runs the bundle: main.cjs is its CommonJS module wrapper, a function expression (see bundle-cli.mjs). */
function run(script) {
  const module = { exports: {}, filename: BUNDLE, id: BUNDLE, loaded: false };
  script.runInThisContext()(module.exports, createRequire(BUNDLE), module, BUNDLE, __dirname);
}

// The bin's reads (it hands over the library's cache-dir.cjs it found, as a package lookup here
// would load part of Node's ES-module loader).
const { entry, reads } =
  globalThis[Symbol.for("envroll.cli.reads")] ?? prefetch(require("envroll/cache-dir.cjs"));
// Dropped, or the bundle's and the code cache's bytes (~2.7 MB) stay reachable all run.
delete globalThis[Symbol.for("envroll.cli.reads")];
reads.then(([cachedData, bundle]) => {
  // The bundle is ASCII (scripts/bundle-cli.mjs checks): Latin-1 reads it without decoding.
  // Compiled as read: a string built around it would be copied once more when V8 flattens it.
  const script = new vm.Script((bundle ?? readFileSync(BUNDLE)).toString("latin1"), {
    filename: BUNDLE,
    ...(entry ? { cachedData } : {}),
  });
  // Written at exit, so the cache holds every function this command compiled.
  if (entry && (cachedData === undefined || script.cachedDataRejected))
    process.once("exit", () => writeCache(entry, script));
  run(script);
});
