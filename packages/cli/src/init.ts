/**
 * `envroll init <name>`: scaffolds a taskset package (taskset, rewards, data, a test, README,
 * package.json) that passes `envroll validate ./<name>` and `npm test` straight away.
 *
 * envroll is not on a registry, so the package depends on it by `file:` path, and init links
 * `node_modules/{envroll,tsx,zod}` to this checkout's copies — exactly what `npm install` would
 * create for those specs — so the scaffold works offline before any install.
 */
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Command } from "commander";
import { UsageError } from "./args.ts";

const require = createRequire(import.meta.url);
const TEMPLATE_DIR = fileURLToPath(new URL("./templates/taskset/", import.meta.url));
/** The `envroll` core package (packages/core in a checkout), which the scaffold depends on. */
const ENVROLL_ROOT = dirname(require.resolve("envroll/package.json"));
/** Packages the scaffold imports at run time or test time, linked from envroll's node_modules. */
const LINKED_DEPS = ["tsx", "zod"] as const;

export interface InitOptions {
  /** Parent directory (default: the current directory). */
  path?: string;
  /** Create node_modules links (default true). */
  link?: boolean;
}

function depVersion(name: string): string {
  const pkg = JSON.parse(readFileSync(fileURLToPath(new URL("../package.json", import.meta.url)), "utf8"));
  return pkg.dependencies?.[name] ?? pkg.devDependencies?.[name] ?? "*";
}

function typeName(name: string): string {
  return name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join("")
    .replace(/^(\d)/, "T$1");
}

function listTemplates(dir: string, prefix = ""): string[] {
  return readdirSync(join(dir, prefix)).flatMap((entry) => {
    const rel = join(prefix, entry);
    return statSync(join(dir, rel)).isDirectory() ? listTemplates(dir, rel) : [rel];
  });
}

/** Writes the scaffold; returns its directory and the files written (relative). */
export function scaffold(name: string, opts: InitOptions = {}): { dir: string; files: string[] } {
  if (!/^[a-z0-9][a-z0-9._-]*$/.test(name)) {
    throw new UsageError(
      `invalid name "${name}": use lower-case letters, digits, ".", "_" or "-" (an npm package name)`,
    );
  }
  const dir = resolve(opts.path ?? ".", name);
  if (existsSync(dir) && readdirSync(dir).length > 0)
    throw new UsageError(`${dir} already exists and is not empty`);
  const spec = `file:${relative(dir, ENVROLL_ROOT) || "."}`;
  const vars: Record<string, string> = {
    __NAME__: name,
    __TYPE__: typeName(name),
    __ENVROLL_SPEC__: spec,
    __ENVROLL_HOME__: ENVROLL_ROOT,
    __TSX_VERSION__: depVersion("tsx"),
    __ZOD_VERSION__: depVersion("zod"),
  };
  const files: string[] = [];
  for (const rel of listTemplates(TEMPLATE_DIR)) {
    const out = rel.replace(/\.tmpl$/, "");
    let text = readFileSync(join(TEMPLATE_DIR, rel), "utf8");
    for (const [k, v] of Object.entries(vars)) text = text.replaceAll(k, v);
    mkdirSync(dirname(join(dir, out)), { recursive: true });
    writeFileSync(join(dir, out), text);
    files.push(out);
  }
  if (opts.link !== false) linkDeps(dir);
  return { dir, files: files.sort() };
}

function linkDeps(dir: string): void {
  const nm = join(dir, "node_modules");
  mkdirSync(nm, { recursive: true });
  symlinkSync(ENVROLL_ROOT, join(nm, "envroll"), "dir");
  for (const dep of LINKED_DEPS) {
    const target = dirname(require.resolve(`${dep}/package.json`));
    if (existsSync(target)) symlinkSync(target, join(nm, dep), "dir");
  }
}

export function registerInitCommand(program: Command): void {
  program
    .command("init")
    .description("Scaffold a taskset package (taskset, rewards, data, test, README)")
    .argument("<name>", "package and directory name")
    .option("-p, --path <dir>", "parent directory", ".")
    .option("--no-link", "do not link node_modules/{envroll,tsx,zod} (run `npm install` yourself)")
    .action((name: string, opts: { path: string; link: boolean }) => {
      const { dir, files } = scaffold(name, opts);
      const shown = relative(process.cwd(), dir) || ".";
      process.stdout.write(
        `created ${shown}/ (${files.join(", ")})\n\n` +
          `  npx envroll validate ./${shown}      # config, tasks, validation, one dry rollout\n` +
          `  (cd ${shown} && npm test)             # the taskset's own tests\n` +
          `  npx envroll eval ./${shown} -n 4 -r 2 # an offline eval on the built-in engine\n`,
      );
    });
}
