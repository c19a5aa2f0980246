/**
 * The judge contract (Verifiers V1 `Judge`): what a plugged judge is, what it may use while
 * scoring, and how its reward key is named. The built-in `reference` and `rubric` judges and
 * TS-module judges are all `JudgeDefinition`s; the runtime gives each the same context, so a
 * module judge gets the same retried, recorded judge calls and template filling as a built-in.
 */
import type { z } from "zod";
import type { TraceView } from "../task.ts";
import type { Message, TaskData } from "../types.ts";
import type { JudgeConfig } from "./schema.ts";

export interface JudgeReply<T> {
  /** The judge's reply content. */
  text: string;
  /** What `parse` made of it (the text itself without `parse`). */
  parsed: T;
}

export interface CompleteOptions<T> {
  /** Turns the reply into a verdict; throwing makes the judge fail (JudgeError), never a 0. */
  parse?: (text: string) => T;
  /** Extra request keys (e.g. `response_format`) over the judge's model and sampling. */
  body?: Record<string, unknown>;
  /** Cancels this call (defaults to the rollout's signal). */
  signal?: AbortSignal;
}

export interface JudgeContext<D extends TaskData = TaskData> {
  task: D;
  trace: TraceView;
  /** The judge's reward key: `name`, else derived from the id. */
  readonly name: string;
  /** Fills the judge's template (config `prompt`, else `prompt_file`, else the judge's default). */
  render(fields: Readonly<Record<string, string>>): string;
  /**
   * One chat call to the judge model through its EvalClient, retried on transient failures by
   * the shared policy, and recorded (request and raw response) in `trace.info.judge`.
   */
  complete<T = string>(prompt: string | Message[], options?: CompleteOptions<T>): Promise<JudgeReply<T>>;
  /** A metric recorded (unweighted) when the judge succeeds, e.g. `rubric/<criterion>`. */
  recordMetric(name: string, value: number): void;
  signal?: AbortSignal;
}

/** A number is recorded under the judge's name; a mapping records one reward per key. */
export type JudgeValue = number | Record<string, number>;

export interface JudgeInstance<D extends TaskData = TaskData> {
  score(ctx: JudgeContext<D>): Promise<JudgeValue> | JudgeValue;
}

export interface JudgeDefinition<C = Record<string, unknown>, D extends TaskData = TaskData> {
  /** The id the built-in registers under; for a module, informative. */
  id: string;
  description?: string;
  /**
   * Validates the judge's own keys (all but the common ones: id, name, weight, model, …), called
   * by the config validator; refinements may read the files a key names (the rubric's criteria).
   */
  configSchema?: z.ZodType<C>;
  /** The default prompt template; its placeholders are the judge's business. */
  prompt?: string;
  /**
   * Called once per environment with the validated config; builds the instance (may read files).
   * Anything it throws is a LoadError: what the config must satisfy belongs in `configSchema`.
   */
  create(config: JudgeConfig & C): JudgeInstance<D> | Promise<JudgeInstance<D>>;
}

/** Identity helper that gives judge authors type inference. */
export function defineJudge<C, D extends TaskData = TaskData>(
  definition: JudgeDefinition<C, D>,
): JudgeDefinition<C, D> {
  return definition;
}

/**
 * The reward key: `name`, else the id without org, version or (for a module path) folder and
 * extension. `org/my-judge@1.2` and `./judges/my-judge.ts` are both `my-judge`.
 */
export function judgeRewardName(config: { id: string; name: string }): string {
  if (config.name) return config.name;
  const last =
    config.id
      .replace(/@[^/]*$/, "")
      .split(/[\\/]/)
      .pop() ?? "";
  return last.replace(/\.(m?[jt]s)$/, "") || "judge";
}
