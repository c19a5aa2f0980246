/**
 * Shared CLI parsing helpers: dotted config overrides (`--sampling.temperature 0.7`,
 * `--harness.id=null`, `--max_turns 3`) and small option converters.
 *
 * Commander is told to let unknown options through; they arrive in `command.args` mixed with
 * the positionals, and `splitArgs` separates them. Any `--KEY[.PATH] [VALUE]` that commander did
 * not recognise is an override of the config key of that name, so every config key works on the
 * command line without being declared one by one.
 */
import { existsSync, statSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { packageEntry as corePackageEntry } from "envroll/internal/loaders/taskset.ts";

export class UsageError extends Error {
  override name = "UsageError";
}

export interface SplitArgs {
  positionals: string[];
  /**
   * Dotted key → raw value, in command-line order (later wins). Values stay strings (a bare
   * switch is `true`): the config loader reads each as the TOML value it spells, so the command
   * line and the TOML file agree on what `3`, `true` or `[1, 2]` mean.
   */
  overrides: Record<string, string | boolean>;
}

/** Separates positionals from `--key.path value` overrides in commander's leftover args. */
export function splitArgs(args: readonly string[]): SplitArgs {
  const positionals: string[] = [];
  const overrides: Record<string, string | boolean> = {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (!a.startsWith("--") || a === "--") {
      positionals.push(a);
      continue;
    }
    const body = a.slice(2);
    const eq = body.indexOf("=");
    let key: string;
    let value: string | boolean;
    if (eq >= 0) {
      key = body.slice(0, eq);
      value = body.slice(eq + 1);
    } else if (body.startsWith("no-")) {
      key = body.slice(3);
      value = false;
    } else {
      key = body;
      const next = args[i + 1];
      // A flag followed by another option (or nothing) is a boolean switch.
      if (next === undefined || (next.startsWith("--") && next.length > 2)) value = true;
      else {
        value = next;
        i++;
      }
    }
    if (!/^[A-Za-z_][\w-]*(\.[\w-]+)*$/.test(key)) throw new UsageError(`malformed option --${key}`);
    overrides[configKey(key)] = value;
  }
  return { positionals, overrides };
}

/** Tables whose keys are free-form names (HTTP headers, environment variables), kept as typed. */
const NAME_TABLES = new Set(["headers", "env"]);

/**
 * `--num-tasks` spells `num_tasks`: dashes become underscores in config key names, but not in a
 * name inside a free-form table (`--client.headers.X-Api-Key` is the header `X-Api-Key`).
 */
export function configKey(option: string): string {
  const parts = option.split(".");
  return parts.map((p, i) => (i > 0 && NAME_TABLES.has(parts[i - 1]!) ? p : p.replace(/-/g, "_"))).join(".");
}

/** Commander converter for positive integers. */
export function positiveInt(name: string): (raw: string) => number {
  return (raw) => {
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 1)
      throw new UsageError(`${name} must be a positive integer, got "${raw}"`);
    return n;
  };
}

/** Commander converter for finite numbers. */
export function finiteNumber(name: string): (raw: string) => number {
  return (raw) => {
    const n = Number(raw);
    if (raw.trim() === "" || !Number.isFinite(n))
      throw new UsageError(`${name} must be a number, got "${raw}"`);
    return n;
  };
}

export type Target = { kind: "config"; path: string } | { kind: "taskset"; id: string };

/**
 * What `eval`/`validate` were pointed at: a TOML config, a taskset package directory (its
 * entry module, so `envroll validate ./demo` works), a module path, or a built-in/hub id.
 * Local paths become absolute so the saved `config.toml` re-runs from any directory.
 */
export function resolveTarget(target: string): Target {
  if (target.endsWith(".toml")) return { kind: "config", path: target };
  const looksLocal = target.startsWith(".") || isAbsolute(target) || /\.(m?[jt]s)$/.test(target);
  if (!looksLocal) return { kind: "taskset", id: target };
  const abs = resolve(target);
  // A Python package folder is a Python V1 taskset (the core loader hosts it).
  if (existsSync(join(abs, "__init__.py"))) return { kind: "taskset", id: abs };
  if (existsSync(abs) && statSync(abs).isDirectory()) return { kind: "taskset", id: packageEntry(abs) };
  return { kind: "taskset", id: abs };
}

/** The entry module of a taskset package directory (see the core loader's `packageEntry`). */
export function packageEntry(dir: string): string {
  const entry = corePackageEntry(dir);
  if (entry === null)
    throw new UsageError(`${dir} is a directory without an entry module (package.json "main" or index.ts)`);
  return entry;
}
