/**
 * Turning validated judge configs into runnable judges, once per environment: the definition
 * (a built-in, or the module judge the config validator imported: judges/registry.ts), its
 * template read, its instance created, and its EvalClient opened on the judge's own endpoint.
 * Nothing here checks the config again; a failure here is a LoadError.
 */
import { readFileSync } from "node:fs";
import { EvalClient } from "../clients/eval.ts";
import { DEFAULT_BASE_URL } from "../config/schema.ts";
import { errorMessage, JudgeError, LoadError } from "../errors.ts";
import type { TraceView } from "../task.ts";
import type { TaskData } from "../types.ts";
import { type CallScope, callJudge, JUDGE_RETRY, type JudgeCallRecord, type JudgeEndpoint } from "./call.ts";
import { type JudgeDefinition, type JudgeInstance, type JudgeValue, judgeRewardName } from "./judge.ts";
import { judgeDefinition } from "./registry.ts";
import type { JudgeConfig } from "./schema.ts";
import { fillTemplate } from "./template.ts";

/** The per-request timeout of a judge call (the OpenAI SDK's default, which Verifiers' judges get). */
export const JUDGE_TIMEOUT_MS = 600_000;

export interface LoadJudgesOptions {
  /** Judges left at the default `base_url` go here instead (the built-in engine, offline). */
  defaultBaseUrl?: string;
  /** Overrides the judge call retry policy (tests use short backoffs). */
  retry?: JudgeEndpoint["retry"];
}

export interface JudgeRun {
  task: TaskData;
  trace: TraceView;
  signal?: AbortSignal;
  /** Receives one record per call, failed ones included. */
  calls: JudgeCallRecord[];
  /** Receives the judge's metrics (kept only if it succeeds). */
  metrics: Record<string, number>;
}

export interface LoadedJudge {
  readonly index: number;
  readonly id: string;
  /** The reward key. */
  readonly name: string;
  readonly weight: number;
  score(run: JudgeRun): Promise<JudgeValue>;
  close(): Promise<void>;
}

function readTemplate(config: JudgeConfig, def: JudgeDefinition<any, any>, where: string): string | null {
  if (config.prompt !== null) return config.prompt;
  if (config.prompt_file === null) return def.prompt ?? null;
  try {
    return readFileSync(config.prompt_file, "utf8");
  } catch (e) {
    // Readable when the config was validated: gone since, it is this load that failed.
    throw new LoadError(`${where}.prompt_file: cannot read ${config.prompt_file}: ${errorMessage(e)}`);
  }
}

async function loadOne(config: JudgeConfig, index: number, options: LoadJudgesOptions): Promise<LoadedJudge> {
  const where = `taskset.task.judges.${index}`;
  const def = judgeDefinition(config.id);
  // The validator resolved (and, for a module, imported and registered) every judge it passed.
  if (def === null)
    throw new Error(`${where}: judge "${config.id}" was not validated (load the config first)`);
  const template = readTemplate(config, def, where);
  let instance: JudgeInstance<any>;
  try {
    instance = await def.create(config);
  } catch (e) {
    throw new LoadError(`${where}: judge "${config.id}" could not be created: ${errorMessage(e)}`, {
      cause: e,
    });
  }
  const baseUrl =
    options.defaultBaseUrl && config.base_url === DEFAULT_BASE_URL ? options.defaultBaseUrl : config.base_url;
  const endpoint: JudgeEndpoint = {
    client: new EvalClient({
      baseUrl,
      model: config.model,
      apiKey: config.api_key_var ? (process.env[config.api_key_var] ?? null) : null,
      headers: config.headers,
      timeoutMs: JUDGE_TIMEOUT_MS,
    }),
    model: config.model,
    sampling: config.sampling,
    retry: options.retry ?? JUDGE_RETRY,
  };
  const name = judgeRewardName(config);
  return {
    index,
    id: config.id,
    name,
    weight: config.weight,
    async score(run) {
      const scope: CallScope = { judge: name, sessionId: `judge-${name}-${run.trace.id}`, sink: run.calls };
      return instance.score({
        task: run.task,
        trace: run.trace,
        name,
        signal: run.signal,
        render(fields) {
          if (template === null)
            throw new JudgeError(`judge ${name}: no prompt template (set prompt or prompt_file)`);
          return fillTemplate(template, fields);
        },
        complete: (prompt, opts) =>
          callJudge(endpoint, scope, prompt, { ...opts, signal: opts?.signal ?? run.signal }),
        recordMetric(key, value) {
          run.metrics[key] = value;
        },
      });
    },
    close: () => endpoint.client.close(),
  };
}

/** Loads every judge; on a failure the ones already opened are closed before it is thrown. */
export async function loadJudges(
  configs: readonly JudgeConfig[],
  options: LoadJudgesOptions = {},
): Promise<LoadedJudge[]> {
  const loaded: LoadedJudge[] = [];
  try {
    for (const [i, c] of configs.entries()) loaded.push(await loadOne(c, i, options));
  } catch (e) {
    await Promise.all(loaded.map((j) => j.close()));
    throw e;
  }
  return loaded;
}
