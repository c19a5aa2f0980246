/**
 * Resolving `taskset.task.judges` at config load: each entry's common keys against the shared
 * schema, a built-in judge's own keys against its schema (a module judge's own keys wait until the
 * module is imported with the environment), and the reward keys. Verifiers lets a judge key
 * silently overwrite a task reward of the same name; here that is a config error naming both,
 * because two scores under one key lose one of them.
 */
import { configErrorFromIssues, didYouMean } from "../config/issues.ts";
import { ConfigError } from "../errors.ts";
import type { Taskset } from "../task.ts";
import { builtinJudge, builtinJudges } from "./builtins.ts";
import { type JudgeDefinition, judgeRewardName } from "./judge.ts";
import { COMMON_JUDGE_KEYS, JudgeCommonSchema, type JudgeConfig } from "./schema.ts";

type Table = Record<string, unknown>;

export const judgePath = (index: number) => `taskset.task.judges.${index}`;

/** Splits an entry into the common keys and the judge's own keys. */
export function ownKeys(entry: Table): Table {
  return Object.fromEntries(Object.entries(entry).filter(([k]) => !COMMON_JUDGE_KEYS.includes(k)));
}

/** Validates a judge's own keys with its `configSchema` (made strict so typos are caught). */
export function checkOwnKeys(def: JudgeDefinition<any, any>, own: Table, index: number): Table {
  const where = judgePath(index);
  const schema = def.configSchema as any;
  if (!schema) {
    const keys = Object.keys(own);
    if (keys.length === 0) return {};
    throw new ConfigError(
      keys
        .map(
          (k) =>
            `${where}.${k}: unknown key${didYouMean(k, COMMON_JUDGE_KEYS)} (judge "${def.id}" has no options)`,
        )
        .join("\n"),
      { path: `${where}.${keys[0]}` },
    );
  }
  const strict = typeof schema.strict === "function" ? schema.strict() : schema;
  const res = strict.safeParse(own);
  if (!res.success) throw configErrorFromIssues(res.error.issues, own, strict, where, COMMON_JUDGE_KEYS);
  return res.data as Table;
}

function resolveOne(entry: unknown, index: number): JudgeConfig {
  const where = judgePath(index);
  if (typeof entry !== "object" || entry === null || Array.isArray(entry))
    throw new ConfigError(`${where}: expected a table, got ${JSON.stringify(entry)}`, { path: where });
  const table = entry as Table;
  const common = Object.fromEntries(Object.entries(table).filter(([k]) => COMMON_JUDGE_KEYS.includes(k)));
  const parsed = JudgeCommonSchema.safeParse(common);
  if (!parsed.success) throw configErrorFromIssues(parsed.error.issues, common, JudgeCommonSchema, where);
  const def = builtinJudge(parsed.data.id);
  const own = def ? checkOwnKeys(def, ownKeys(table), index) : ownKeys(table);
  return { ...parsed.data, ...own };
}

/** The resolved judge list; throws ConfigError naming the entry (and the reward it collides with). */
export function resolveJudgeConfigs(entries: readonly unknown[], taskset: Taskset<any, any>): JudgeConfig[] {
  const judges = entries.map(resolveOne);
  const taken = new Map<string, string>();
  for (const r of taskset.rewards ?? []) taken.set(r.name, `reward "${r.name}" of taskset "${taskset.id}"`);
  for (const g of taskset.groupRewards ?? [])
    taken.set(g.name, `group reward "${g.name}" of taskset "${taskset.id}"`);
  judges.forEach((j, i) => {
    const key = judgeRewardName(j);
    const other = taken.get(key);
    const where = judgePath(i);
    if (other !== undefined)
      throw new ConfigError(
        `${where}.name: judge "${j.id}" would record its reward as "${key}", the key of ${other}; give the judge a distinct name`,
        { path: `${where}.name` },
      );
    taken.set(key, `judge ${where} ("${j.id}")`);
  });
  return judges;
}

export const BUILTIN_JUDGE_IDS: readonly string[] = Object.keys(builtinJudges);
