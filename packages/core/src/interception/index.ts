export { InterceptionServer, type Registration } from "./server.ts";
export { type CompletionResult, RolloutSession, type SessionOptions } from "./session.ts";
export { runToolCall } from "./tools.ts";
export * from "./wire.ts";
