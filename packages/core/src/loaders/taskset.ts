/**
 * Taskset resolution (Verifiers `v1/loaders.py`): an id names a built-in taskset, a Python
 * Verifiers V1 taskset importable by the host interpreter (python/taskset.ts; a hub id maps to
 * its module as V1 maps it), an installed npm package (`my-env`, `@scope/my-env` — the
 * counterpart of importing an environment package installed with `prime env install`), or a
 * local module. Hub ids (`org/name@version`) map to the package names `@org/name` and `name`.
 * A built-in answers only to its own id (`reverse-text`, or `org/reverse-text@v`): an id such as
 * `reverse_text_v1` means the Python environment, never a TypeScript port of a similar name.
 * Nothing is ever installed: a missing taskset is a config error that says the install command.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { didYouMean } from "../config/issues.ts";
import { ConfigError } from "../errors.ts";
import { CORE_ROOT } from "../package-root.ts";
import type { HostOptions } from "../python/host.ts";
import { PythonImportError, resolvePythonTaskset } from "../python/taskset.ts";
import type { Taskset } from "../task.ts";
import { builtinTasksets } from "../tasksets/index.ts";
import { importUserModule, isPlugin, looksLikePath } from "../user-module.ts";

const isTaskset = (v: unknown): v is Taskset<any, any> => isPlugin<Taskset<any, any>>(v, "load");

/** Built-in names an id may mean: as given, or a hub id without org/version. */
function candidates(id: string): string[] {
  const name = id.replace(/^[^/]*\//, "").replace(/@.*$/, "");
  return [...new Set([id, name])];
}

/** A path to a Python module: a `.py` file or a package folder (its `__init__.py`). */
function isPythonPath(id: string): boolean {
  return id.endsWith(".py") || existsSync(join(resolve(id), "__init__.py"));
}

export function builtinTasksetIds(): string[] {
  return Object.keys(builtinTasksets).sort();
}

/** npm package names an id may mean: itself, or for a hub id `org/name@v` `@org/name` then `name`. */
export function packageNames(id: string): string[] {
  const bare = id.replace(/(.)@[^/@]*$/, "$1");
  if (bare.startsWith("@")) return [bare];
  const m = /^([^/]+)\/([^/]+)$/.exec(bare);
  return m ? [`@${m[1]}/${m[2]}`, m[2]!] : [bare];
}

/** The folder of package `name` installed in `from` or a folder above it (Node's lookup), or null. */
function installedPackage(name: string, from: string): string | null {
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return candidate;
    if (dirname(dir) === dir) return null;
  }
}

/** The entry module of a package folder: package.json `exports["."]`/`main`, else index.{ts,js,mjs}. */
export function packageEntry(dir: string): string | null {
  const pkgPath = join(dir, "package.json");
  if (existsSync(pkgPath)) {
    const pkg = JSON.parse(readFileSync(pkgPath, "utf8"));
    const exp = pkg.exports;
    const entry =
      typeof exp === "string" ? exp : (exp?.["."]?.import ?? exp?.["."]?.default ?? exp?.["."] ?? pkg.main);
    if (typeof entry === "string" && existsSync(join(dir, entry))) return join(dir, entry);
  }
  for (const name of ["index.ts", "index.mts", "index.js", "index.mjs"]) {
    if (existsSync(join(dir, name))) return join(dir, name);
  }
  return null;
}

/** A Python V1 taskset of that id, null when none is importable; one that fails to import names taskset.id. */
async function pythonTaskset(id: string, python: HostOptions): Promise<Taskset<any, any> | null> {
  try {
    return await resolvePythonTaskset(id, python);
  } catch (e) {
    if (e instanceof PythonImportError)
      throw new ConfigError(`taskset.id: ${e.message}`, { path: "taskset.id" });
    throw e;
  }
}

export async function resolveTaskset(
  id: string,
  from = process.cwd(),
  python: HostOptions = {},
): Promise<Taskset<any, any>> {
  if ((looksLikePath(id) || id.startsWith("/")) && isPythonPath(id)) {
    const py = await pythonTaskset(id, python);
    if (py) return py;
    throw new ConfigError(
      `taskset.id: ${id} is a Python module, but no Python V1 taskset could be found in it`,
      {
        path: "taskset.id",
      },
    );
  }
  if (looksLikePath(id)) return loadModule(id);
  for (const c of candidates(id)) {
    // Own keys only: "constructor" or "toString" must not resolve to Object.prototype members.
    const load = Object.hasOwn(builtinTasksets, c) ? builtinTasksets[c] : undefined;
    if (load) return load();
  }
  const py = await pythonTaskset(id, python);
  if (py) return py;
  const names = packageNames(id);
  for (const name of names) {
    const dir = installedPackage(name, from);
    if (!dir) continue;
    const entry = packageEntry(dir);
    if (!entry)
      throw new ConfigError(
        `taskset.id: package "${name}" (${dir}) has no entry module (package.json "main")`,
        {
          path: "taskset.id",
        },
      );
    return loadModule(entry);
  }
  const known = builtinTasksetIds();
  throw new ConfigError(
    `taskset.id: unknown taskset "${id}"${didYouMean(id, known)}: not built-in (${known.join(", ") || "none"}), no Python module importable by ${python.python || process.env["ENVROLL_TASKSET_PYTHON"] || "python3"} (set [python] executable/path or $ENVROLL_TASKSET_PYTHON), and no installed package ${names.map((n) => `"${n}"`).join(" or ")}; install it with \`npm install ${names[names.length - 1]}\` (or a file:/git spec), or give a path to a module`,
    { path: "taskset.id" },
  );
}

/** What to add when a module outside any package cannot import envroll. */
function standaloneHint(path: string, message: string): string {
  if (
    !/Cannot find (package|module) '(envroll|zod)'|require\(\) ES Module|Cannot use import statement/.test(
      message,
    )
  )
    return "";
  return ` — a taskset module needs a package.json beside it with "type": "module" and envroll installed: \`npm init -y && npm pkg set type=module && npm install ${CORE_ROOT}\` in ${dirname(resolve(path))}, or start from \`npx envroll init NAME\``;
}

/** A module must export exactly one taskset (default or named), so the choice is never a guess. */
async function loadModule(path: string): Promise<Taskset<any, any>> {
  let mod: Record<string, unknown>;
  try {
    mod = await importUserModule(pathToFileURL(resolve(path)).href);
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    throw new ConfigError(`taskset.id: cannot import ${path}: ${message}${standaloneHint(path, message)}`, {
      path: "taskset.id",
    });
  }
  const found = [...new Set(Object.values(mod).filter(isTaskset))];
  if (found.length !== 1)
    throw new ConfigError(`taskset.id: ${path} must export exactly one taskset, found ${found.length}`, {
      path: "taskset.id",
    });
  return found[0]!;
}
