/**
 * Short and legacy key names (Verifiers' pydantic aliases and vf-eval flags). They are mapped to
 * the canonical key before validation so every later layer sees one spelling.
 */
import { ConfigError } from "../errors.ts";

export const TOP_LEVEL_ALIASES: Readonly<Record<string, string>> = {
  m: "model",
  n: "num_tasks",
  num_examples: "num_tasks",
  batch_size: "num_tasks",
  r: "num_rollouts",
  rollouts_per_example: "num_rollouts",
  group_size: "num_rollouts",
  s: "shuffle",
  c: "max_concurrent",
  v: "verbose",
  o: "output_dir",
};

const NESTED_ALIASES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  sampling: { max_completion_tokens: "max_tokens" },
};

function own<V>(map: Readonly<Record<string, V>>, key: string): V | undefined {
  return Object.hasOwn(map, key) ? map[key] : undefined;
}

/** The canonical spelling of a dotted key path. */
export function canonicalPath(path: readonly string[]): string[] {
  if (path.length === 0) return [];
  const [head, ...rest] = path;
  // Own keys only: `constructor` or `__proto__` must not resolve to Object.prototype members.
  const top = own(TOP_LEVEL_ALIASES, head!) ?? head!;
  if (rest.length > 0) {
    const nested = own(NESTED_ALIASES, top);
    const alias = nested && own(nested, rest[0]!);
    if (alias) rest[0] = alias;
  }
  return [top, ...rest];
}

function renameKeys(
  obj: Record<string, unknown>,
  map: Readonly<Record<string, string>>,
  where: string,
): void {
  for (const [alias, canonical] of Object.entries(map)) {
    if (!(alias in obj)) continue;
    if (canonical in obj)
      throw new ConfigError(`${where}${alias}: is an alias of ${where}${canonical}; give only one of them`, {
        path: `${where}${alias}`,
      });
    obj[canonical] = obj[alias];
    delete obj[alias];
  }
}

/** Rewrites aliases in place (top level and known nested tables). */
export function normalizeAliases(raw: Record<string, unknown>): Record<string, unknown> {
  renameKeys(raw, TOP_LEVEL_ALIASES, "");
  for (const [table, map] of Object.entries(NESTED_ALIASES)) {
    const t = raw[table];
    if (t && typeof t === "object" && !Array.isArray(t))
      renameKeys(t as Record<string, unknown>, map, `${table}.`);
  }
  return raw;
}
