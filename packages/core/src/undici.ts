/**
 * The part of undici envroll uses: Pool (the SGLang transport's admin channel and TLS, the
 * engine's router), Agent (the eval client) and the error classes. undici's entry module loads
 * every dispatcher, fetch, WebSocket, the cache and mock layers, so the few modules needed are
 * loaded by path; and only when the first Pool or Agent is made (undici-load.cjs): an eval over
 * plain HTTP sends `/generate` through h1.ts and never needs undici, whose modules (with
 * node:http2 and node:tls behind them) were a tenth of the CLI's start-up.
 */
import type * as Undici from "undici";
import { loadUndici } from "./undici-load.cjs";

// Constructors that build undici's own classes: `new Pool(…)` returns a real undici Pool.
export const Pool = function Pool(url: string | URL, options?: Undici.Pool.Options) {
  return new (loadUndici().Pool)(url, options);
} as unknown as typeof Undici.Pool;
export type Pool = Undici.Pool;
export const Agent = function Agent(options?: Undici.Agent.Options) {
  return new (loadUndici().Agent)(options);
} as unknown as typeof Undici.Agent;
export type Agent = Undici.Agent;
/** undici's error classes, read on access (an `instanceof` check only follows a request, so undici is loaded by then). */
export const errors: typeof Undici.errors = new Proxy({} as typeof Undici.errors, {
  get: (_target, name) => loadUndici().errors[name as keyof typeof Undici.errors],
});
