/**
 * The rollout error taxonomy (Verifiers V1 `errors.py`): a flat set of classes, each naming the
 * boundary a failure crossed. Retry policies and reports match on the type name (`error.name`),
 * because errors travel as `{type, message}` records in traces and services, where no class is
 * left to test; `instanceof` is only for code holding the live error in this process.
 *
 * The provider errors are the transport's own classes, re-exported, so that there is exactly one
 * `ProviderError` in the process whether a failure came from SGLang or an OpenAI endpoint.
 */
import { ProviderConnectionError, ProviderError, ProviderTimeoutError } from "./transport/errors.ts";

// Every provider error is one of ours too (ResponseShapeError included: a malformed reply).
export * from "./transport/errors.ts";

/** Base of every error that ends a rollout as data (captured on its trace). */
export class RolloutError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The harness program failed (non-zero exit, crash, protocol misuse). */
export class HarnessError extends RolloutError {}
/** A task tool server or tool execution infrastructure failed. */
export class ToolsetError extends RolloutError {}
/** The user simulator failed. */
export class UserError extends RolloutError {}
/** The runtime (subprocess, sandbox) could not start, run or stop. */
export class SandboxError extends RolloutError {}
/** Task code (setup, finalize, metrics, rewards, stop conditions) threw or timed out. */
export class TaskError extends RolloutError {}
/** The interception layer itself failed (bad request shape, server error). */
export class InterceptionError extends RolloutError {}
/**
 * A request the train path refuses by design (e.g. an image part for a text-only renderer): it would fail
 * the same way on every try, so a train step stops on this type instead of resampling.
 */
export class UnsupportedError extends RolloutError {}
/**
 * A sampled turn held a tool call that did not parse, and `tool_call_failures.action = "error"`
 * makes that a failure of the rollout (by default it is only counted).
 */
export class ToolCallParseError extends RolloutError {}
/**
 * A plugged judge could not give a verdict: its endpoint failed after retries, its reply held no
 * parseable verdict, or the task lacks a field it grades. Never scored as 0: the rollout errors,
 * and `retries.rollout` may rerun it (`include = ["JudgeError"]`).
 */
export class JudgeError extends RolloutError {}

/**
 * A group reward failed or returned the wrong number of scores. Not a rollout error: it is
 * never captured per trace and fails the whole group loudly.
 */
export class GroupRewardError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "GroupRewardError";
  }
}

/**
 * An environment could not be built from a valid config: the taskset's rows did not load or
 * did not match its dataSchema, a judge could not be created. Not a config error: the config
 * passed validation (loaders/validate.ts), and what failed is the work of loading it.
 */
export class LoadError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "LoadError";
  }
}

/**
 * A configuration problem, reported before anything runs. Only the validator raises it (the
 * schema in config/, the validation in loaders/: test/structure/config-errors.test.ts). `path` is the dotted key path
 * (e.g. `retries.rollout.max_retries`); `line`/`column` are set for TOML syntax errors.
 */
export class ConfigError extends Error {
  readonly path: string | null;
  readonly line: number | null;
  readonly column: number | null;

  constructor(
    message: string,
    opts: { path?: string | null; line?: number | null; column?: number | null } = {},
  ) {
    super(message);
    this.name = "ConfigError";
    this.path = opts.path ?? null;
    this.line = opts.line ?? null;
    this.column = opts.column ?? null;
  }
}

/** Errors that already name their boundary pass through `boundary` unchanged. */
export function isTypedError(e: unknown): e is RolloutError | ProviderError {
  return e instanceof RolloutError || e instanceof ProviderError;
}

type RolloutErrorClass = new (message: string, options?: { cause?: unknown }) => RolloutError;

/**
 * Runs `fn`; a plain exception (or timeout) escaping it becomes `cls`, so the trace records
 * which boundary failed rather than a bare `Error`. Typed errors pass through unchanged.
 */
export async function boundary<T>(
  cls: RolloutErrorClass,
  what: string,
  fn: () => T | Promise<T>,
): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw asTyped(cls, what, e);
  }
}

export function asTyped(cls: RolloutErrorClass, what: string, e: unknown): RolloutError | ProviderError {
  if (isTypedError(e)) return e;
  return new cls(`${what}: ${errorMessage(e)}`, { cause: e });
}

export function errorMessage(e: unknown): string {
  if (e instanceof Error) return e.message || e.name;
  return String(e);
}

/**
 * The HTTP status the interception server relays for a failed model call: the provider's own
 * for HTTP errors, 504 for a timeout, 503 for a connection failure, otherwise 502 — so the
 * program's SDK sees a retriable 5xx the way it would from the real provider.
 */
export function relayStatus(e: unknown): number {
  if (e instanceof ProviderTimeoutError) return 504;
  if (e instanceof ProviderConnectionError) return 503;
  if (e instanceof ProviderError && e.statusCode != null && e.statusCode >= 400) return e.statusCode;
  return 502;
}
