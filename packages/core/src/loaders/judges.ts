/**
 * Validating `taskset.task.judges`, part of the one config validation (validate.ts): each entry's
 * common keys against the shared schema; its definition — a built-in, or a module imported now
 * (exactly one `defineJudge` export) and registered for the loader; the judge's own keys against
 * its `configSchema`; a `prompt_file` that can be read; and the reward keys. Verifiers lets a
 * judge key silently overwrite a task reward of the same name; here that is a config error
 * naming both, because two scores under one key lose one of them.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { configErrorFromIssues, didYouMean } from "../config/issues.ts";
import { ONCE } from "../config/load.ts";
import { COMMON_JUDGE_KEYS, JudgeCommonSchema, type JudgeConfig } from "../config/schema.ts";
import { ConfigError, errorMessage } from "../errors.ts";
import { BUILTIN_JUDGE_IDS, builtinJudge } from "../judges/builtins.ts";
import { type JudgeDefinition, judgeRewardName } from "../judges/judge.ts";
import { registerJudge } from "../judges/registry.ts";
import type { Taskset } from "../task.ts";
import { importUserModule, isPlugin, looksLikePath } from "../user-module.ts";

type Table = Record<string, unknown>;

const judgePath = (index: number) => `taskset.task.judges.${index}`;

const isDefinition = (v: unknown): v is JudgeDefinition<any, any> =>
  isPlugin<JudgeDefinition<any, any>>(v, "create");

/** A module must export exactly one judge definition, so the choice is never a guess. */
async function importDefinition(id: string, where: string): Promise<JudgeDefinition<any, any>> {
  let mod: Record<string, unknown>;
  try {
    mod = await importUserModule(looksLikePath(id) ? pathToFileURL(resolve(id)).href : id);
  } catch (e) {
    const known = BUILTIN_JUDGE_IDS;
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

/** A judge's own keys checked by its `configSchema` (made strict so typos are caught). */
function checkOwnKeys(def: JudgeDefinition<any, any>, own: Table, where: string): Table {
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
  const res = strict.safeParse(own, ONCE);
  if (!res.success) throw configErrorFromIssues(res.error.issues, own, strict, where, COMMON_JUDGE_KEYS);
  return res.data as Table;
}

async function validateOne(entry: unknown, index: number): Promise<JudgeConfig> {
  const where = judgePath(index);
  if (typeof entry !== "object" || entry === null || Array.isArray(entry))
    throw new ConfigError(`${where}: expected a table, got ${JSON.stringify(entry)}`, { path: where });
  const table = entry as Table;
  const pick = (common: boolean) =>
    Object.fromEntries(Object.entries(table).filter(([k]) => COMMON_JUDGE_KEYS.includes(k) === common));
  const parsed = JudgeCommonSchema.safeParse(pick(true), ONCE);
  if (!parsed.success) throw configErrorFromIssues(parsed.error.issues, pick(true), JudgeCommonSchema, where);
  const { id, prompt_file } = parsed.data;
  let def = builtinJudge(id);
  if (def === null) {
    def = await importDefinition(id, where);
    registerJudge(id, def);
  }
  const own = checkOwnKeys(def, pick(false), where);
  if (prompt_file !== null) {
    try {
      readFileSync(prompt_file, "utf8");
    } catch (e) {
      throw new ConfigError(
        `${where}.prompt_file: cannot read ${prompt_file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`,
        { path: `${where}.prompt_file` },
      );
    }
  }
  return { ...parsed.data, ...own };
}

/** The validated judge list; a ConfigError names the entry (and the reward it collides with). */
export async function resolveJudgeConfigs(
  entries: readonly unknown[],
  taskset: Taskset<any, any>,
): Promise<JudgeConfig[]> {
  const judges: JudgeConfig[] = [];
  for (const [i, entry] of entries.entries()) judges.push(await validateOne(entry, i));
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
