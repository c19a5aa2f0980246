/**
 * Turning resolved judge configs into runnable judges, once per environment: the definition
 * (built-in, or imported from a module path or package), its own keys checked, its template read,
 * its instance created, and its EvalClient opened on the judge's own endpoint.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { EvalClient } from "../clients/eval.ts";
import { didYouMean } from "../config/issues.ts";
import { DEFAULT_BASE_URL } from "../config/schema.ts";
import { ConfigError, errorMessage, JudgeError } from "../errors.ts";
import type { TraceView } from "../task.ts";
import type { TaskData } from "../types.ts";
import { importUserModule, isPlugin, looksLikePath } from "../user-module.ts";
import { builtinJudge, builtinJudges } from "./builtins.ts";
import { type CallScope, callJudge, JUDGE_RETRY, type JudgeCallRecord, type JudgeEndpoint } from "./call.ts";
import { checkOwnKeys, judgePath, ownKeys } from "./config.ts";
import { type JudgeDefinition, type JudgeInstance, type JudgeValue, judgeRewardName } from "./judge.ts";
import { COMMON_JUDGE_KEYS, type JudgeConfig } from "./schema.ts";
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

const isDefinition = (v: unknown): v is JudgeDefinition<any, any> =>
  isPlugin<JudgeDefinition<any, any>>(v, "create");

/** A module must export exactly one judge definition, so the choice is never a guess. */
async function importDefinition(id: string, where: string): Promise<JudgeDefinition<any, any>> {
  let mod: Record<string, unknown>;
  try {
    mod = await importUserModule(looksLikePath(id) ? pathToFileURL(resolve(id)).href : id);
  } catch (e) {
    const known = Object.keys(builtinJudges);
    const hint = looksLikePath(id) ? "" : `${didYouMean(id, known)} (built-in: ${known.join(", ")})`;
    throw new ConfigError(`${where}.id: cannot load judge "${id}"${hint}: ${errorMessage(e)}`, {
      path: `${where}.id`,
    });
  }
  const found = [...new Set(Object.values(mod).filter(isDefinition))];
  if (found.length !== 1)
    throw new ConfigError(
      `${where}.id: ${id} must export exactly one judge (defineJudge), found ${found.length}`,
      {
        path: `${where}.id`,
      },
    );
  return found[0]!;
}

function readTemplate(config: JudgeConfig, def: JudgeDefinition<any, any>, where: string): string | null {
  if (config.prompt !== null) return config.prompt;
  if (config.prompt_file !== null) {
    try {
      return readFileSync(config.prompt_file, "utf8");
    } catch (e) {
      throw new ConfigError(
        `${where}.prompt_file: cannot read ${config.prompt_file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`,
        { path: `${where}.prompt_file` },
      );
    }
  }
  return def.prompt ?? null;
}

async function loadOne(config: JudgeConfig, index: number, options: LoadJudgesOptions): Promise<LoadedJudge> {
  const where = judgePath(index);
  let def = builtinJudge(config.id);
  let resolved = config;
  if (def === null) {
    def = await importDefinition(config.id, where);
    const common = Object.fromEntries(Object.entries(config).filter(([k]) => COMMON_JUDGE_KEYS.includes(k)));
    resolved = { ...common, ...checkOwnKeys(def, ownKeys(config), index) } as JudgeConfig;
  }
  const template = readTemplate(resolved, def, where);
  let instance: JudgeInstance<any>;
  try {
    instance = await def.create(resolved);
  } catch (e) {
    if (e instanceof ConfigError) throw e;
    throw new ConfigError(`${where}: judge "${config.id}": ${errorMessage(e)}`, { path: where });
  }
  const baseUrl =
    options.defaultBaseUrl && resolved.base_url === DEFAULT_BASE_URL
      ? options.defaultBaseUrl
      : resolved.base_url;
  const endpoint: JudgeEndpoint = {
    client: new EvalClient({
      baseUrl,
      model: resolved.model,
      apiKey: resolved.api_key_var ? (process.env[resolved.api_key_var] ?? null) : null,
      headers: resolved.headers,
      timeoutMs: JUDGE_TIMEOUT_MS,
    }),
    model: resolved.model,
    sampling: resolved.sampling,
    retry: options.retry ?? JUDGE_RETRY,
  };
  const name = judgeRewardName(resolved);
  return {
    index,
    id: resolved.id,
    name,
    weight: resolved.weight,
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
