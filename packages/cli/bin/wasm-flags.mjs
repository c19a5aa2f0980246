/**
 * Imported first wherever the CLI starts (the bin, the bundle's loader). undici parses HTTP
 * with llhttp compiled to WebAssembly; V8 compiles it with its baseline compiler and then
 * re-compiles hot functions with the optimizing one on background threads, and Node waits for
 * every background task before a process may exit: on a loaded machine an eval that had
 * finished sat 100-400 ms in that wait. Baseline code parses the responses as fast here (no
 * per-request CPU difference measured). Set before anything compiles WebAssembly.
 */
import { setFlagsFromString } from "node:v8";

setFlagsFromString("--no-wasm-tier-up");
setFlagsFromString("--no-wasm-dynamic-tiering");
