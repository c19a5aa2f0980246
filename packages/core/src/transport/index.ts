/** Public surface of the SGLang transport. */
export {
  OverlongPromptError,
  ProviderConnectionError,
  ProviderError,
  ProviderHttpError,
  ProviderTimeoutError,
  RequestCancelledError,
  ResponseShapeError,
} from "./errors.ts";
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
