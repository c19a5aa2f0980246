/** Public surface of the SGLang transport. */
export * from "./errors.ts";
export { buildSamplingParams, capMaxNewTokens, unionIds } from "./sampling.ts";
export { SessionTable } from "./sessions.ts";
export { SglangTransport } from "./sglang-transport.ts";
export type {
  GenerateFinishReason,
  GenerateRequest,
  GenerateResult,
  RetryOptions,
  RoutingPolicy,
  SamplingInput,
  SglangTransportOptions,
  TransportStats,
} from "./types.ts";
