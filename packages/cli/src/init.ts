/**
 * `envroll init <name>`: scaffolds a taskset package (taskset with a reference solution,
 * rewards, data, a test, README, package.json, tsconfig.json) in which every command its README
 * shows works straight away, offline — `npx envroll validate .`, `npm test`, `npm run validate`,
 * `npm run eval`, `npm run typecheck` — and which other projects install as a taskset package.
 *
 * envroll is not on a registry, so the package depends on it (and on the CLI) by `file:` path,
 * and init links `node_modules/{envroll,@envroll/cli,tsx,zod,typescript,@types/node}` and the
 * `envroll`/`tsc` bins to this checkout's copies — what `npm install` would create for those
 * specs — so the scaffold works before any install.
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
import type { Command } from "commander";
import { UsageError } from "./args.ts";

const requireHere = createRequire(import.meta.url);
/** The `envroll` core package (packages/core in a checkout), which the scaffold depends on. */
const ENVROLL_ROOT = dirname(requireHere.resolve("envroll/package.json"));
/**
 * The CLI package (packages/cli), whose bin the scaffold's scripts run; found by name, since
 * this module may run from the CLI's bundle (dist/chunks/) as well as from src/.
 */
const CLI_ROOT = dirname(requireHere.resolve("@envroll/cli/package.json"));
const TEMPLATE_DIR = join(CLI_ROOT, "src", "templates", "taskset");
/** Packages the scaffold imports at run, test or type-check time, linked from this install. */
const LINKED_DEPS = ["tsx", "zod", "typescript", "@types/node"] as const;
/** Bins the scaffold's scripts call: name → path inside node_modules. */
const LINKED_BINS: Record<string, string> = {
  envroll: "@envroll/cli/bin/envroll.cjs",
  tsc: "typescript/bin/tsc",
};

export interface InitOptions {
  /** Parent directory (default: the current directory). */
  path?: string;
  /** Create node_modules links (default true). */
  link?: boolean;
}

/** The version of `name` installed beside the CLI ("*" when it is not installed). */
function depVersion(name: string): string {
  try {
    return JSON.parse(readFileSync(requireHere.resolve(`${name}/package.json`), "utf8")).version ?? "*";
  } catch {
    return "*";
  }
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
  const cliSpec = `file:${relative(dir, CLI_ROOT) || "."}`;
  const vars: Record<string, string> = {
    __NAME__: name,
    __TYPE__: typeName(name),
    __ENVROLL_SPEC__: spec,
    __ENVROLL_HOME__: ENVROLL_ROOT,
    __TSX_VERSION__: depVersion("tsx"),
    __ZOD_VERSION__: depVersion("zod"),
    __CLI_SPEC__: cliSpec,
    __TYPESCRIPT_VERSION__: depVersion("typescript"),
    __TYPES_NODE_VERSION__: depVersion("@types/node"),
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

function link(target: string, at: string, kind: "dir" | "file"): void {
  mkdirSync(dirname(at), { recursive: true });
  symlinkSync(kind === "file" ? relative(dirname(at), target) : target, at, kind);
}

function linkDeps(dir: string): void {
  const nm = join(dir, "node_modules");
  link(ENVROLL_ROOT, join(nm, "envroll"), "dir");
  link(CLI_ROOT, join(nm, "@envroll", "cli"), "dir");
  for (const dep of LINKED_DEPS) {
    let target: string;
    try {
      target = dirname(requireHere.resolve(`${dep}/package.json`));
    } catch {
      continue; // not installed here (e.g. typescript without dev dependencies): npm install adds it
    }
    link(target, join(nm, dep), "dir");
  }
  for (const [bin, path] of Object.entries(LINKED_BINS))
    if (existsSync(join(nm, path))) link(join(nm, path), join(nm, ".bin", bin), "file");
}

export function registerInitCommand(program: Command): void {
  program
    .command("init")
    .description("Scaffold a taskset package (taskset, rewards, data, test, README)")
    .argument("<name>", "package and directory name")
    .option("-p, --path <dir>", "parent directory", ".")
    .option("--no-link", "do not link node_modules from this install (run `npm install` yourself)")
    .action((name: string, opts: { path: string; link: boolean }) => {
      const { dir, files } = scaffold(name, opts);
      const shown = relative(process.cwd(), dir) || ".";
      process.stdout.write(
        `created ${shown}/ (${files.join(", ")})\n\n` +
          `  cd ${shown}\n` +
          "  npx envroll validate .   # config, tasks, validation, one dry rollout (its reference solution)\n" +
          "  npm test                 # the taskset's own tests\n" +
          "  npm run eval             # an offline eval on the built-in engine\n",
      );
    });
}
