export * from "../clients/wire.ts";
export {
  chatDialect,
  completionToChunks,
  completionToWire,
  openAiErrorBody,
  samplingFromWire,
} from "./dialects/chat.ts";
export type { Dialect, DialectName, DialectRequest, SseEvent } from "./dialects/dialect.ts";
export type { InterceptionRoute, RouteContext } from "./route.ts";
export { InterceptionServer, type InterceptionServerOptions, type Registration } from "./server.ts";
export { type CompletionResult, RolloutSession, type SessionOptions } from "./session.ts";
export { runToolCall } from "./tools.ts";
