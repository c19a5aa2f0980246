/**
 * What `envroll eval` is asked to do, resolved before anything runs: the config (CLI over TOML
 * over taskset defaults over built-in defaults; the TOML read once, the taskset resolved once),
 * where model calls go, and whether a run folder is being resumed.
 *
 * The named flags (-n, -r, -c, -s, -m, -o, …) and every `--KEY.PATH VALUE` become dotted
 * overrides handed to the config loader, so a flag and its config key can never disagree.
 */
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { readConfigFile } from "envroll/internal/config/index.ts";
import type { EnvConfig } from "envroll/internal/config/schema.ts";
import { loadConfigAndTaskset } from "envroll/internal/loaders/config.ts";
import { FILES } from "envroll/internal/outputs/run-folder.ts";
import type { Taskset } from "envroll/internal/task.ts";
import { stringify as stringifyToml } from "smol-toml";
import { resolveTarget, UsageError } from "./args.ts";
import { BUILTIN_MODEL, type EndpointChoice } from "./eval-backend.ts";
import { checkModel } from "./model-check.ts";

export interface EvalFlags {
  engine?: string;
  openai?: string;
  model?: string;
  numTasks?: number;
  numRollouts?: number;
  maxConcurrent?: number;
  shuffle?: boolean;
  outputDir?: string;
  resume?: string;
  passThreshold?: number;
  maxErrorRate?: number;
  dryRun?: boolean;
}

export interface EvalPlan {
  config: EnvConfig;
  taskset: Taskset<any, any>;
  endpoint: EndpointChoice;
  /** The run folder being resumed, or null for a new run. */
  resumeDir: string | null;
  /** Whether the model was named (flag, TOML or override); if not, the endpoint is asked. */
  modelGiven: boolean;
}

/** Keys a resumed run must keep: changing them would change which rollouts exist. */
const FIXED_ON_RESUME = ["taskset", "num_tasks", "num_rollouts", "shuffle"];

function flagOverrides(flags: EvalFlags): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  if (flags.model !== undefined) o["model"] = flags.model;
  if (flags.numTasks !== undefined) o["num_tasks"] = flags.numTasks;
  if (flags.numRollouts !== undefined) o["num_rollouts"] = flags.numRollouts;
  if (flags.maxConcurrent !== undefined) o["max_concurrent"] = flags.maxConcurrent;
  if (flags.shuffle) o["shuffle"] = true;
  if (flags.outputDir !== undefined) o["output_dir"] = flags.outputDir;
  if (flags.passThreshold !== undefined) o["pass_threshold"] = flags.passThreshold;
  if (flags.maxErrorRate !== undefined) o["max_error_rate"] = flags.maxErrorRate;
  if (flags.engine) Object.assign(o, { "client.type": "train", "client.base_url": flags.engine });
  if (flags.openai) Object.assign(o, { "client.type": "eval", "client.base_url": flags.openai });
  return o;
}

export async function planEval(
  target: string | undefined,
  flags: EvalFlags,
  extra: Record<string, unknown>,
): Promise<EvalPlan> {
  if (flags.engine && flags.openai) throw new UsageError("give --engine or --openai, not both");
  const overrides: Record<string, unknown> = { ...extra, ...flagOverrides(flags) };
  let source: string | null = null;
  let resumeDir: string | null = null;
  if (flags.resume) {
    resumeDir = flags.resume;
    source = join(resumeDir, FILES.config);
    if (!existsSync(source)) throw new UsageError(`--resume ${resumeDir}: no ${FILES.config} there`);
    const bad = Object.keys(overrides).filter((k) => FIXED_ON_RESUME.includes(k.split(".")[0]!));
    if (bad.length > 0)
      throw new UsageError(`--resume keeps the run's ${bad.join(", ")}; drop those options`);
  } else {
    if (!target) throw new UsageError("name a taskset or a config.toml (or --resume DIR)");
    const t = resolveTarget(target);
    if (t.kind === "config") source = t.path;
    else overrides["taskset.id"] = t.id;
  }
  // Read once: its keys decide the defaults below, and the same table is what gets validated.
  const raw = source ? await readConfigFile(source) : {};
  // No client anywhere (flags, TOML, overrides) means the offline quickstart: the built-in engine.
  const explicitClient =
    Boolean(flags.engine || flags.openai) ||
    raw["client"] !== undefined ||
    Object.keys(overrides).some((k) => k === "client" || k.startsWith("client."));
  const modelGiven =
    raw["model"] !== undefined || raw["m"] !== undefined || "model" in overrides || "m" in overrides;
  // The built-in engine is SGLang-shaped: its sampling keys are checked as the TrainClient's.
  const builtin = explicitClient ? {} : { "client.type": "train" };
  const modelDefault = explicitClient || modelGiven ? {} : { model: BUILTIN_MODEL };
  // TOML values are relative to the file's folder, command-line values to the working folder.
  const { config, taskset } = await loadConfigAndTaskset(
    raw,
    { ...builtin, ...modelDefault, ...overrides },
    source ? { baseDir: dirname(resolve(source)) } : {},
  );
  const endpoint: EndpointChoice = explicitClient
    ? { kind: "client", client: config.client }
    : { kind: "builtin" };
  checkModel(config, endpoint);
  return { config, taskset, endpoint, resumeDir, modelGiven };
}

/** The resolved config as re-runnable TOML (nulls dropped: TOML has none, and they are defaults). */
export function configToml(config: EnvConfig, header: string[]): string {
  const strip = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(strip);
    if (v && typeof v === "object") {
      return Object.fromEntries(
        Object.entries(v)
          .filter(([, x]) => x !== null && x !== undefined)
          .map(([k, x]) => [k, strip(x)]),
      );
    }
    return v;
  };
  const { resume: _r, dry_run: _d, ...rest } = config;
  // The one null that is not a default: "no API key variable" is spelled "" so it survives TOML.
  if (rest.client?.api_key_var === null) rest.client = { ...rest.client, api_key_var: "" };
  return `${header.map((l) => `# ${l}`).join("\n")}\n${stringifyToml(strip(rest) as Record<string, unknown>)}\n`;
}
