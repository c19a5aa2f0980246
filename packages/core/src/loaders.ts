/**
 * Taskset resolution (Verifiers `v1/loaders.py`): an id names a built-in taskset or a local
 * module. Hub ids (`org/name@version`) are reduced to their name, as Verifiers does, but nothing
 * is ever installed — a missing taskset is a config error, not a network fetch.
 */
import { isAbsolute, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { didYouMean } from "./config/issues.ts";
import { ConfigError } from "./errors.ts";
import type { Taskset } from "./task.ts";
import { builtinTasksets } from "./tasksets/index.ts";

/** A module path (relative, absolute, or a .ts/.js file name) rather than a registered id. */
export const looksLikePath = (id: string) => id.startsWith(".") || isAbsolute(id) || /\.(m?[jt]s)$/.test(id);

function isTaskset(v: unknown): v is Taskset<any, any> {
  return (
    typeof v === "object" &&
    v !== null &&
    typeof (v as Taskset).id === "string" &&
    typeof (v as Taskset).load === "function"
  );
}

/** Candidate built-in names for an id: as given, without org/version, `_` → `-`, without `-v1`. */
function candidates(id: string): string[] {
  const name = id.replace(/^[^/]*\//, "").replace(/@.*$/, "");
  const dashed = name.replaceAll("_", "-");
  return [...new Set([id, name, dashed, dashed.replace(/-v\d+$/, "")])];
}

export function builtinTasksetIds(): string[] {
  return Object.keys(builtinTasksets).sort();
}

export async function resolveTaskset(id: string): Promise<Taskset<any, any>> {
  if (looksLikePath(id)) return loadModule(id);
  for (const c of candidates(id)) {
    // Own keys only: "constructor" or "toString" must not resolve to Object.prototype members.
    const load = Object.hasOwn(builtinTasksets, c) ? builtinTasksets[c] : undefined;
    if (load) return load();
  }
  const known = builtinTasksetIds();
  throw new ConfigError(
    `taskset.id: unknown taskset "${id}"${didYouMean(id, known)} (built-in: ${known.join(", ") || "none"}; or a path to a module)`,
    { path: "taskset.id" },
  );
}

/** A module must export exactly one taskset (default or named), so the choice is never a guess. */
async function loadModule(path: string): Promise<Taskset<any, any>> {
  let mod: Record<string, unknown>;
  try {
    mod = await import(pathToFileURL(resolve(path)).href);
  } catch (e) {
    throw new ConfigError(
      `taskset.id: cannot import ${path}: ${e instanceof Error ? e.message : String(e)}`,
      {
        path: "taskset.id",
      },
    );
  }
  const found = [...new Set(Object.values(mod).filter(isTaskset))];
  if (found.length !== 1)
    throw new ConfigError(`taskset.id: ${path} must export exactly one taskset, found ${found.length}`, {
      path: "taskset.id",
    });
  return found[0]!;
}
