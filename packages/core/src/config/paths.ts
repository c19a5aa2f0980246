/**
 * Paths as users mean them. A relative path in a config value means the folder it was written
 * from: the config file's folder for TOML values, the folder envroll was started in for
 * command-line values. Programs run in a per-rollout working folder elsewhere, and a saved
 * `config.toml` is re-run from anywhere, so such paths are made absolute while the config is
 * loaded, before anything runs.
 *
 * Only values that name something that exists relative to that folder change: `python3`,
 * `-m`, a split name or a hub id stay as written, and a path that exists nowhere is left for the
 * step that reads it to report.
 */
import { existsSync, statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";

type Table = Record<string, unknown>;
const isTable = (v: unknown): v is Table => typeof v === "object" && v !== null && !Array.isArray(v);

type Kind = "file" | "any";

function exists(path: string, kind: Kind): boolean {
  try {
    return kind === "any" ? existsSync(path) : statSync(path).isFile();
  } catch {
    return false;
  }
}

/** `value` made absolute against `base` when it is a relative path to an existing `kind`. */
function absolute(value: unknown, base: string, kind: Kind): unknown {
  if (typeof value !== "string" || value === "" || isAbsolute(value)) return value;
  const full = resolve(base, value);
  return exists(full, kind) ? full : value;
}

/**
 * An argv: every entry naming an existing regular file (the program or an argument) becomes
 * absolute. Folders are left alone: `python3 -m pkg` must keep naming a module, not a path.
 */
function argv(value: unknown, base: string): unknown {
  return Array.isArray(value) ? value.map((a) => absolute(a, base, "file")) : value;
}

/** A module named by path rather than by package or built-in id (as the loaders read it). */
const MODULE_PATH = /^\.|\.(m?[jt]s)$/;

/** A free-form `[taskset]` string that reads as a file name (`data/x.jsonl`, `tasks.json`). */
const FILE_LIKE = /[/\\]|\.[A-Za-z0-9]{1,8}$/;

function tasksetPaths(ts: Table, base: string): void {
  for (const [k, v] of Object.entries(ts)) {
    if (k === "id") ts[k] = typeof v === "string" && MODULE_PATH.test(v) ? absolute(v, base, "any") : v;
    else if (k === "task" && isTable(v) && Array.isArray(v["judges"])) {
      for (const j of v["judges"]) {
        if (!isTable(j)) continue;
        if (typeof j["id"] === "string" && MODULE_PATH.test(j["id"]))
          j["id"] = absolute(j["id"], base, "any");
        for (const key of ["prompt_file", "path"]) if (key in j) j[key] = absolute(j[key], base, "any");
      }
    } else if (typeof v === "string" && FILE_LIKE.test(v)) ts[k] = absolute(v, base, "file");
  }
}

/**
 * Makes the path-valued keys of a raw (alias-normalized) config table absolute against `base`,
 * in place: `model` (a checkpoint folder), `taskset.id` (a module or package folder), the
 * taskset's own file options (`dataset_path`, …), judge modules, templates and rubrics,
 * `harness.command`, `harness.runtime.ro_bind`, `python.executable` and `python.path`, and each
 * toolset's `command` and `cwd`.
 */
export function absolutizePaths(table: Table, base: string): Table {
  if ("model" in table) table["model"] = absolute(table["model"], base, "any");
  if (isTable(table["taskset"])) tasksetPaths(table["taskset"], base);
  const harness = table["harness"];
  if (isTable(harness)) {
    if ("command" in harness) harness["command"] = argv(harness["command"], base);
    const runtime = harness["runtime"];
    if (isTable(runtime) && Array.isArray(runtime["ro_bind"]))
      runtime["ro_bind"] = runtime["ro_bind"].map((p) => absolute(p, base, "any"));
  }
  const python = table["python"];
  if (isTable(python)) {
    // `python3` stays a PATH lookup; `./venv/bin/python` and sys.path folders are the file's.
    if ("executable" in python) python["executable"] = absolute(python["executable"], base, "file");
    if (Array.isArray(python["path"])) python["path"] = python["path"].map((p) => absolute(p, base, "any"));
  }
  if (Array.isArray(table["toolsets"]))
    for (const t of table["toolsets"]) {
      if (!isTable(t)) continue;
      if ("command" in t) t["command"] = argv(t["command"], base);
      if ("cwd" in t) t["cwd"] = absolute(t["cwd"], base, "any");
    }
  return table;
}

/** One dotted override (`harness.command`, `taskset.dataset_path`) made absolute against `base`. */
export function absolutizeOverride(path: readonly string[], value: unknown, base: string): unknown {
  const root: Table = {};
  let t = root;
  for (const k of path.slice(0, -1)) {
    const next: Table = {};
    t[k] = next;
    t = next;
  }
  const last = path[path.length - 1]!;
  t[last] = value;
  absolutizePaths(root, base);
  return t[last];
}

/**
 * The existing files an argv names by absolute path (after `absolutizePaths`): what a runtime
 * that hides the host's filesystem must still show, read-only, for the program to start.
 */
export function argvFiles(args: readonly string[] | undefined): string[] {
  return (args ?? []).filter((a) => isAbsolute(a) && exists(a, "file"));
}
