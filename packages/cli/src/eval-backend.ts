/**
 * The one file of the CLI that knows the environment runtime's API: it turns a resolved config
 * plus an endpoint choice into something that runs (task, rollout) work and streams finished
 * TraceRecords. `eval` and `validate` only see the narrow `EvalBackend` port, so they
 * are testable with a fake and unaffected by changes inside the runtime.
 */

import type { startEngine } from "@envroll/engine/internal/index.ts";
import type { PolicyFn } from "@envroll/engine/internal/types.ts";
import type { Client } from "envroll/internal/clients/client.ts";
import { TrainClient } from "envroll/internal/clients/train.ts";
import { type ClientConfig, DEFAULT_DEADLINE, type EnvConfig } from "envroll/internal/config/schema.ts";
import { type Environment, loadEnvironment } from "envroll/internal/environment.ts";
import type { ResumeWork } from "envroll/internal/outputs/resume.ts";
import { type ReferenceBook, type ReferenceStats, referenceBook } from "envroll/internal/references.ts";
import type { Taskset } from "envroll/internal/task.ts";
import { isCheckpointFolder } from "envroll/internal/tokenizer/index.ts";
import type { TraceRecord } from "envroll/internal/trace/record.ts";
import { enableThinking, makeClient, prefetchClientTokenizer, preloadTokenizer } from "./client-factory.ts";

/** Where model calls go: the configured client, or the built-in engine started in-process. */
export type EndpointChoice =
  /** `policy`: what the engine answers with (default: the tasksets' reference solutions). */
  { kind: "builtin"; policy?: PolicyFn } | { kind: "client"; client: ClientConfig };

export interface RunOptions {
  /** Rollouts in flight at once. */
  concurrency: number;
  /** Aborting stops scheduling; in-flight rollouts end (errored) and are still delivered. */
  signal: AbortSignal;
  /** Called once per finished rollout — for group-reward tasks once the group is scored. */
  onTrace(trace: TraceRecord): void;
  /** Run-level warnings (each said once per run). */
  onWarning?(message: string): void;
}

export interface EvalBackend {
  /** The taskset's own id (a module path in the config still names e.g. "reverse-text"). */
  readonly tasksetId: string;
  /** Task indices the config selects (num_tasks, shuffle), in run order. */
  readonly taskIndices: readonly number[];
  /**
   * On the built-in engine: which turns the taskset's reference solution answered and which
   * were echoed; `defined` is false when the taskset has no reference. Null for other endpoints.
   */
  readonly reference: (ReferenceStats & { defined: boolean }) | null;
  isGroupTask(taskIndex: number): boolean;
  run(work: readonly ResumeWork[], opts: RunOptions): Promise<void>;
  /** Model requests retried so far, by reason (`abort`, `timeout`, `status_5xx`, …). */
  retries(): Record<string, number>;
  /** Aborts in-flight model requests. */
  abort(): Promise<void>;
  close(): Promise<void>;
}

/** The model name the built-in engine reports when it serves the carried Qwen3 files. */
export const BUILTIN_MODEL = "envroll-engine/reference";

/**
 * The TrainClient settings for the built-in engine: the renderer follows the checkpoint folder
 * it serves (`--model DIR`), else Qwen3.
 */
function builtinClient(url: string, folder: string | null): ClientConfig {
  return {
    type: "train",
    base_url: url,
    api_key_var: null,
    headers: {},
    renderer: folder === null ? "qwen3" : null,
    renderer_model_name: null,
    timeout: null,
    deadline: { ...DEFAULT_DEADLINE },
  };
}

/**
 * `identified` settles when the endpoint check is done (it may set `config.model`, which decides
 * the renderer): the environment is loaded while it is in flight, and the tokenizer read too when
 * the renderer is already named. Its failure comes first, as if it had been awaited before.
 */
export async function openBackend(
  config: EnvConfig,
  endpoint: EndpointChoice,
  say: (line: string) => void,
  taskset?: Taskset<any, any>,
  identified: Promise<void> = Promise.resolve(),
): Promise<EvalBackend> {
  // Awaited below; meanwhile a rejection is not unhandled.
  identified.catch(() => {});
  let engine: Awaited<ReturnType<typeof startEngine>> | null = null;
  let clientConfig: ClientConfig;
  // The engine starts before the tasks load (judges need its URL), so its reference source is
  // bound to the taskset's reference book once they have.
  let book: ReferenceBook | null = null;
  if (endpoint.kind === "builtin") {
    const folder = isCheckpointFolder(config.model) ? config.model : null;
    // Imported here: a run against --engine or --openai never loads the built-in engine.
    const { startEngine } = await import("@envroll/engine/internal/index.ts");
    engine = await startEngine({
      policy: endpoint.policy ?? "reference",
      reference: (messages, rng) => book?.answer(messages, rng) ?? null,
      ...(folder ? { model: folder } : { modelName: BUILTIN_MODEL }),
      // How envroll advises serving SGLang for streaming programs (README): SGLang's default
      // cumulative chunks cost a turn streamed token by token the square of its length.
      incrementalStreaming: true,
    });
    clientConfig = builtinClient(engine.url, folder);
  } else clientConfig = endpoint.client;
  // The tokenizer's file is read on libuv's threads while the environment loads on this one.
  const tokenizerRead = prefetchClientTokenizer(clientConfig, config.model);
  let env: Environment | null = null;
  try {
    // Offline, the built-in engine also answers the judges left at the default (unreachable) endpoint.
    const judges = engine ? { defaultBaseUrl: `${engine.url}/v1` } : undefined;
    try {
      env = await loadEnvironment(config, { ...(taskset ? { taskset } : {}), judges });
    } catch (e) {
      await identified;
      throw e;
    }
    let reference: EvalBackend["reference"] = null;
    if (engine) {
      book = referenceBook([{ taskset: env.taskset, tasks: env.tasks }]);
      reference = Object.assign(book.stats, { defined: book.tasksetIds.length > 0 });
      if (endpoint.kind !== "builtin" || !endpoint.policy)
        say(
          `no --engine/--openai given: using the built-in engine (reference policy, not a model) at ${engine.url}` +
            (env.judges.length > 0 ? " for the model and the judges" : ""),
        );
    }
    await tokenizerRead;
    preloadTokenizer(clientConfig, config.model);
    await identified;
    const client = makeClient(clientConfig, config.model, enableThinking(config.sampling));
    return new EnvironmentBackend(env, client, engine, reference);
  } catch (e) {
    await env?.close();
    await engine?.close();
    throw e;
  }
}

class EnvironmentBackend implements EvalBackend {
  readonly taskIndices: readonly number[];
  readonly tasksetId: string;

  constructor(
    private readonly env: Environment,
    private readonly client: Client,
    private readonly engine: { close(): Promise<void> } | null,
    readonly reference: EvalBackend["reference"],
  ) {
    this.taskIndices = env.tasks.map((_, i) => i);
    this.tasksetId = env.taskset.id;
  }

  isGroupTask(): boolean {
    return this.env.requiresGroupScoring;
  }

  async run(work: readonly ResumeWork[], opts: RunOptions): Promise<void> {
    await this.env.run(work, {
      client: this.client,
      concurrency: opts.concurrency,
      signal: opts.signal,
      onTrace: opts.onTrace,
      onWarning: opts.onWarning,
    });
  }

  retries(): Record<string, number> {
    return this.client instanceof TrainClient ? { ...this.client.requestStats.retriesByReason } : {};
  }

  async abort(): Promise<void> {
    await this.client.abort();
  }

  async close(): Promise<void> {
    await this.client.close();
    await this.env.close();
    await this.engine?.close();
  }
}
