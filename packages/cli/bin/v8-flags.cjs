/**
 * V8 settings for the CLI, required first wherever it starts (the bin, the bundle's loader),
 * before anything compiles or allocates much.
 *
 * undici parses HTTP with llhttp compiled to WebAssembly; V8 compiles it with its baseline
 * compiler and then re-compiles hot functions with the optimizing one on background threads, and
 * Node waits for every background task before a process may exit: on a loaded machine an eval
 * that had finished sat 100-400 ms in that wait. Baseline code parses the responses as fast here
 * (no per-request CPU difference measured).
 *
 * The young generation keeps V8's growth (it doubles, from 1 MB). Growing it by 4 saved
 * scavenges when start-up allocated more; now an eval reaches its first /generate with ~1 MB
 * of young objects, and every page of young generation it grows into is a fresh page (a fault,
 * ~12.7 us on the machines measured): by 2 it touched ~5 % fewer pages than by 4 (7,536 against
 * 7,948 in 14 alternating rounds) for 1-2 % less CPU, and 3-5 % less over a 1,000-rollout eval.
 * The settings V8 reads only when the heap is created (--min-semi-space-size) cannot be set here.
 *
 * A regex is compiled to bytecode for its first run and compiled again to machine code for its
 * second (tier-up). The tokenizer's split pattern (Unicode classes minus HF's exceptions, large
 * to compile) runs on every chunk of the first render, so each eval compiled it twice before its
 * first model call; compiling to machine code at once was ~17 M fewer instructions there
 * (callgrind, 58 -> 41 M for the first rollout's render). A regex that runs once now gets the
 * machine-code compile too; every regex that runs twice ends up there anyway.
 *
 * Node compiles its own built-in modules from a code cache inside its binary, which V8 accepts
 * only under the flags it was made with: after any setFlagsFromString every built-in loaded was
 * compiled from source instead (crypto's 36 modules, vm, net, …: ~22 M instructions of an eval
 * before its first /generate, callgrind). So the built-ins an eval loads after this point are
 * loaded first (the list is of the public modules it loaded after node:v8, Node 20.20).
 *
 * Required by absolute path, before any relative or bare require: V8 (Node 20) crashes (SIGSEGV)
 * when a regex compiled to bytecode under regexp tier-up, and run only once, runs again after
 * --no-regexp-tier-up. CommonJS's resolver runs its package-name pattern once per relative or
 * bare require (resolveExports), so `require("./v8-flags.cjs")` followed by any package require
 * crashed the bin.
 */
const { setFlagsFromString } = require("node:v8");

const BEFORE_FLAGS = [
  "node:crypto",
  "node:vm",
  "node:net",
  "node:os",
  "node:perf_hooks",
  "node:diagnostics_channel",
  // Since the start path is CommonJS, not an ES module: createRequire and, for the core's
  // fs/promises imports, Node's fs/dir, watchers and readline modules.
  "node:module",
  "node:fs/promises",
];
for (const m of BEFORE_FLAGS) require(m);

setFlagsFromString("--no-wasm-tier-up");
setFlagsFromString("--no-wasm-dynamic-tiering");
setFlagsFromString("--no-regexp-tier-up");
