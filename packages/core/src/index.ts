/**
 * envroll's public API: what tasksets, agents and integrations import. Everything here is
 * stable surface; modules not re-exported are internal. The CLI is not part of it.
 */
export type { Client, ModelRequest, ModelResponse, Sampling, TurnTokens, Usage } from "./clients/client.ts";
export { createEvalClient, EvalClient } from "./clients/eval.ts";
export { TrainClient, type TrainClientOptions, TurnAbortedError } from "./clients/train.ts";
export * from "./config/index.ts";
export { sequenceMatcherRatio } from "./difflib/index.ts";
export * from "./environment.ts";
export * from "./errors.ts";
export * from "./harnesses/index.ts";
export * from "./interception/index.ts";
export * from "./judges/index.ts";
export {
  type LoadConfigOptions,
  loadConfig,
  loadConfigAndTaskset,
} from "./loaders/config.ts";
export { resolveJudgeConfigs } from "./loaders/judges.ts";
export { validateConfig } from "./loaders/validate.ts";
export { createRenderer } from "./renderers/index.ts";
export type * from "./renderers/renderer.ts";
export { createRuntime, registerRuntime, runtimeTypes } from "./runtimes/index.ts";
export type { ProgramResult, RunOptions, Runtime, RuntimeSpec } from "./runtimes/runtime.ts";
export * from "./task.ts";
export { builtinTasksets } from "./tasksets/index.ts";
export { pyLen, pyStrip, reverseCodePoints } from "./text/python-str.ts";
export { loadTokenizer, type Tokenizer } from "./tokenizer/index.ts";
export * from "./trace/index.ts";
export type * from "./trace/record.ts";
export { SglangTransport, type SglangTransportOptions } from "./transport/index.ts";
export * from "./types.ts";
