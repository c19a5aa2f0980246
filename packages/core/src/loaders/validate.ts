/**
 * `validateConfig`: the one place configuration is validated (ARCHITECTURE.md, "Configuration is
 * validated once"). A raw table (aliases normalized, paths absolute, overrides applied) and the
 * taskset it names become a typed `EnvConfig`, or a ConfigError naming the key, before anything
 * loads or runs. In order:
 *   1. the zod schema (config/schema.ts) over the built-in, taskset-suggested and given values,
 *      and the sampling keys against the client that will run them;
 *   2. the taskset's own keys: its `configSchema`, its own validator (`checkConfig`: a Python V1
 *      taskset's pydantic model, through the host), the `[taskset.task]` keys it declares;
 *   3. the judges: common and own keys, module judges imported, prompt files, reward keys
 *      (judges.ts);
 *   4. the plugins the config names: harness id and fit, toolsets, group size, runtime type and
 *      its own schema (checks.ts).
 * Plugins report through pure validators (schemas, issue lists, `requirements`); only this folder
 * and the schema's own rules (config/) raise ConfigError (test/structure/config-errors.test.ts).
 */
import { normalizeAliases, TOP_LEVEL_ALIASES } from "../config/aliases.ts";
import { configErrorFromIssues, didYouMean } from "../config/issues.ts";
import { deepMerge, isTable, ONCE, type Table } from "../config/load.ts";
import { checkSamplingKeys } from "../config/sampling-keys.ts";
import { type EnvConfig, EnvConfigSchema, type SchemaOutput } from "../config/schema.ts";
import { ConfigError } from "../errors.ts";
import type { ConfigIssue, Taskset } from "../task.ts";
import { checkWithPlugins } from "./checks.ts";
import { resolveJudgeConfigs } from "./judges.ts";

/** Validates an alias-normalized raw config against everything the config and its taskset name. */
export async function validateConfig(raw: Table, taskset: Taskset<any, any>): Promise<EnvConfig> {
  const config = parseSchema(raw, taskset);
  const { id, task, ...fields } = config.taskset;
  const tasksetFields = checkTasksetFields(fields, taskset);
  checkTaskKeys(task, taskset);
  if (taskset.checkConfig) {
    const { judges: _, ...own } = task;
    throwIssues(await taskset.checkConfig(tasksetFields, own));
  }
  const valid: EnvConfig = {
    ...config,
    taskset: {
      id,
      task: { ...task, judges: await resolveJudgeConfigs(task.judges, taskset) },
      ...tasksetFields,
    },
  };
  await checkWithPlugins(valid, taskset);
  return valid;
}

/** Step 1: the schema over the merged defaults, the taskset's suggestions and the given table. */
function parseSchema(raw: Table, taskset: Taskset<any, any>): SchemaOutput {
  // A taskset's preferred runtime (e.g. a sandbox for model-written code) is a default like any other.
  const suggested: Table = taskset.runtime ? { harness: { runtime: taskset.runtime } } : {};
  const defaults = deepMerge(suggested, normalizeAliases(structuredClone(taskset.defaults ?? {})));
  const merged = deepMerge(defaults, raw);
  const harness = merged["harness"];
  // A command without an id can only mean the command harness.
  if (
    isTable(harness) &&
    harness["command"] !== undefined &&
    (raw["harness"] as Table | undefined)?.["id"] === undefined
  )
    harness["id"] = "command";
  const client = merged["client"];
  if (isTable(client) && client["type"] === undefined) client["type"] = "eval";

  const parsed = EnvConfigSchema.safeParse(merged, ONCE);
  if (!parsed.success)
    throw configErrorFromIssues(
      parsed.error.issues,
      merged,
      EnvConfigSchema,
      "",
      Object.keys(TOP_LEVEL_ALIASES),
    );
  // Checked against the client that will run it when the config names one.
  checkSamplingKeys(parsed.data.sampling, isTable(merged["client"]) ? parsed.data.client.type : "any");
  return parsed.data;
}

/** Step 2: the `[taskset]` fields by the taskset's schema. */
function checkTasksetFields(fields: Table, taskset: Taskset<any, any>): Table {
  const schema = taskset.configSchema as any;
  let checked: Table = fields;
  if (schema) {
    // Taskset schemas are usually plain objects; make them strict so typos are caught here too.
    const strict = typeof schema.strict === "function" ? schema.strict() : schema;
    const res = strict.safeParse(fields, ONCE);
    if (!res.success) throw configErrorFromIssues(res.error.issues, fields, strict, "taskset");
    checked = res.data;
  } else if (Object.keys(fields).length > 0) {
    throw new ConfigError(
      Object.keys(fields)
        .map((k) => `taskset.${k}: unknown key (taskset "${taskset.id}" has no options)`)
        .join("\n"),
      { path: `taskset.${Object.keys(fields)[0]}` },
    );
  }
  return checked;
}

/** A plugin validator's issues as one ConfigError: every line, the first key as its path. */
function throwIssues(issues: readonly ConfigIssue[]): void {
  if (issues.length === 0) return;
  throw new ConfigError(issues.map((i) => `${i.path}: ${i.message}`).join("\n"), { path: issues[0]!.path });
}

/** The `[taskset.task]` keys besides judges: the ones the taskset declares. */
function checkTaskKeys(task: Table, taskset: Taskset<any, any>): void {
  const allowed = new Set(taskset.taskConfigKeys ?? []);
  const unknown = Object.keys(task).filter((k) => k !== "judges" && !allowed.has(k));
  if (unknown.length > 0)
    throw new ConfigError(
      unknown
        .map(
          (k) =>
            `taskset.task.${k}: unknown key${didYouMean(k, ["judges", ...allowed])} (taskset "${taskset.id}" takes ${["judges", ...allowed].join(", ")})`,
        )
        .join("\n"),
      { path: `taskset.task.${unknown[0]}` },
    );
}
