/**
 * Every example in the READMEs, as written (issue 37): README.md and every other README.md of
 * the repository, block by block, in file order, each README in a scratch folder of its own.
 *
 * What happens to a fenced block is said by an HTML comment on the line above its fence (blank
 * lines between are allowed; GitHub does not render it):
 *
 *   <!-- readme-test: run -->                       run the shell block in the scratch folder
 *   <!-- readme-test: run needs-python=openai,httpx -->   the same, skipped (with the reason)
 *                                                   where python3 cannot import those modules
 *   <!-- readme-test: save agent.py -->             syntax-check the block and save it there
 *                                                   (a later `run` block uses it)
 *   <!-- readme-test: syntax needs a GPU -->        check syntax only; say why it cannot run
 *   <!-- readme-test: skip why -->                  not checked at all; say why
 *
 * Unmarked blocks: a shell block (sh, bash, shell) whose commands are all `npx envroll …`
 * (optionally fed by echo/cat) runs; other shell blocks are syntax-checked; python, ts/js, toml
 * and json blocks are syntax-checked; blocks without a language (output, usage lines) are
 * skipped. Set-up and suite commands (`npm ci`, `npm test`, `npm run e2e|bench|fixtures`,
 * `pip install`, `pytest`) are dropped from every block before it runs; a block of nothing else
 * is skipped.
 *
 * Running: `npx` is a shim that runs this checkout's `envroll` bin (the one `npx envroll`
 * resolves to) and refuses anything else; `python3` is the project's `.venv` one when it
 * exists. A failing block is reported by file and line.
 *
 * Syntax checks: shell `bash -n`, plus for each `npx envroll` command its options (`eval` runs
 * with `--dry-run`, which validates every config key; other commands' options are looked up in
 * their `--help`), plus for a Miles command line (`--rollout-function-path …`, or a line of
 * flags) every flag against envroll_miles' own option list and its README's Miles options;
 * Python compiled (top-level `await` allowed); TypeScript parsed (as a module, object members or
 * a function body); TOML loaded and validated as an envroll config (`taskset.id` defaults to
 * reverse-text), or only parsed when marked `syntax`; JSON parsed. An `envroll eval` whose
 * target is a file the scratch folder lacks (a config.toml of the reader's) has its named
 * options checked against `--help` instead of a dry run.
 */
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { type TestContext, test } from "node:test";
import { parse as parseToml } from "smol-toml";
import { loadConfig } from "../../packages/core/src/loaders/config.ts";
import { BIN, ROOT } from "../cli/cli-helpers.ts";
import { type Block, type Mark, readmeBlocks, readmes } from "./markdown.ts";
import { checkedCommands, envrollArgs, isEnvrollCommand, stages, words } from "./shell.ts";
import { jsonSyntax, milesOptions, pythonSyntax, shellSyntax, typescriptSyntax } from "./syntax.ts";

const SHELL = new Set(["sh", "bash", "shell"]);
const TS = new Set(["ts", "typescript", "js", "javascript", "mjs"]);
const VENV_BIN = join(ROOT, ".venv", "bin");
const RUN_TIMEOUT_MS = 180_000;

/** What the test does with an unmarked block. */
function defaultMark(b: Block): Mark {
  if (SHELL.has(b.lang)) {
    const commands = checkedCommands(b.body);
    if (commands.length === 0) return { kind: "skip", why: "set-up or suite commands only" };
    if (commands.every(isEnvrollCommand)) return { kind: "run", needsPython: [] };
    return { kind: "syntax", why: "not an envroll command" };
  }
  if (
    b.lang === "python" ||
    b.lang === "py" ||
    TS.has(b.lang) ||
    b.lang === "toml" ||
    b.lang.startsWith("json")
  )
    return { kind: "syntax", why: "a fragment" };
  return { kind: "skip", why: "plain text (output or a usage line)" };
}

/** A folder with `npx` → this checkout's envroll (and nothing else). */
function shimDir(scratch: string): string {
  const dir = join(scratch, ".bin");
  mkdirSync(dir, { recursive: true });
  const npx = join(dir, "npx");
  writeFileSync(
    npx,
    `#!/bin/sh\nif [ "$1" = envroll ]; then shift; exec "${process.execPath}" "${BIN}" "$@"; fi\n` +
      `echo "README test: only 'npx envroll' runs here, not: npx $*" >&2\nexit 127\n`,
  );
  chmodSync(npx, 0o755);
  return dir;
}

interface Scratch {
  cwd: string;
  env: NodeJS.ProcessEnv;
}

function newScratch(): Scratch {
  const root = mkdtempSync(join(tmpdir(), "envroll-readme-"));
  const cwd = join(root, "work");
  mkdirSync(cwd);
  const path = [shimDir(root), ...(existsSync(VENV_BIN) ? [VENV_BIN] : []), process.env.PATH ?? ""].join(":");
  return { cwd, env: { ...process.env, PATH: path } };
}

function runScript(script: string, s: Scratch): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn("bash", ["-eo", "pipefail", "-c", script], { cwd: s.cwd, env: s.env });
    let out = "";
    const collect = (d: Buffer) => {
      out += d;
    };
    child.stdout.on("data", collect);
    child.stderr.on("data", collect);
    const timer = setTimeout(() => child.kill("SIGTERM"), RUN_TIMEOUT_MS);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

const where = (b: Block) => `${b.file}:${b.line}`;

const helpCache = new Map<string, string>();
function helpOf(command: string[], s: Scratch): string {
  const key = command.join(" ");
  let help = helpCache.get(key);
  if (help === undefined) {
    const r = spawnSync(process.execPath, [BIN, ...command, "--help"], {
      cwd: s.cwd,
      env: s.env,
      encoding: "utf8",
    });
    assert.equal(r.status, 0, `envroll ${key} --help: ${r.stderr}`);
    help = r.stdout;
    helpCache.set(key, help);
  }
  return help;
}

/** An `npx envroll` command that is not run: `eval` with --dry-run, others' options against their help. */
function checkEnvrollCommand(b: Block, command: string, s: Scratch): void {
  for (const stage of stages(command)) {
    const args = envrollArgs(stage);
    if (args === null) continue;
    const sub = args[0]!;
    // A target that only exists where the block is meant to run (a config.toml, a module path)
    // cannot be dry-run here: then eval's named options are looked up like any command's.
    const target = args[1] !== undefined && !args[1].startsWith("-") ? args[1] : null;
    const local = target !== null && (/\.(toml|py|m?[jt]s)$/.test(target) || /^[./~]/.test(target));
    if (sub === "eval" && (!local || existsSync(join(s.cwd, target!)))) {
      const r = spawnSync(process.execPath, [BIN, ...args, "--dry-run"], {
        cwd: s.cwd,
        env: s.env,
        encoding: "utf8",
      });
      assert.equal(r.status, 0, `${where(b)}: \`${command}\` --dry-run failed:\n${r.stderr}`);
      continue;
    }
    const cmd = sub === "tokens" ? args.slice(0, 2) : [sub];
    const help = helpOf(cmd, s);
    // `--KEY.PATH` config keys exist only for eval, and only its --dry-run can check them.
    const named = args.filter((a) => /^--?[A-Za-z]/.test(a) && !(sub === "eval" && a.includes(".")));
    for (const opt of named.map((a) => a.split("=")[0]!))
      assert.ok(
        new RegExp(`(^|[\\s,])${opt}([\\s,]|$)`, "m").test(help),
        `${where(b)}: envroll ${cmd.join(" ")} has no option ${opt} (see its --help)`,
      );
  }
}

const miles = milesOptions(ROOT);

/** A Miles command line: every flag is envroll_miles' own or a Miles option its README lists. */
function checkMilesFlags(b: Block, command: string): void {
  for (const flag of words(command).filter((w) => w.startsWith("--"))) {
    const name = flag.split("=")[0]!;
    const known = name.startsWith("--envroll-") ? miles.envroll.has(name) : miles.miles.has(name);
    assert.ok(known, `${where(b)}: ${name} is not an envroll_miles option nor a Miles option in its README`);
  }
}

const isMilesCommand = (command: string) =>
  command.startsWith("--") || command.includes("--rollout-function-path");

let pythonErrors: Map<Block, string> | null = null;
function pythonError(b: Block, all: readonly Block[]): string | null {
  if (pythonErrors === null) {
    const py = all.filter((x) => x.lang === "python" || x.lang === "py");
    const errs = pythonSyntax("python3", py);
    pythonErrors = new Map([...errs].map(([i, e]) => [py[i]!, e]));
  }
  return pythonErrors.get(b) ?? null;
}

async function checkSyntax(b: Block, mark: Mark, s: Scratch, all: readonly Block[]): Promise<void> {
  const fail = (msg: string | null) => assert.equal(msg, null, `${where(b)}: ${msg}`);
  if (SHELL.has(b.lang)) {
    fail(shellSyntax(b));
    for (const c of checkedCommands(b.body)) {
      if (isEnvrollCommand(c)) checkEnvrollCommand(b, c, s);
      else if (isMilesCommand(c)) checkMilesFlags(b, c);
    }
  } else if (b.lang === "python" || b.lang === "py") fail(pythonError(b, all));
  else if (TS.has(b.lang)) fail(typescriptSyntax(b));
  else if (b.lang.startsWith("json")) fail(jsonSyntax(b));
  else if (b.lang === "toml" && mark.kind === "syntax" && b.mark !== null) {
    // Marked: it needs what is not here (a Python environment, a provider), so TOML syntax only.
    try {
      parseToml(b.body);
    } catch (e) {
      assert.fail(`${where(b)}: TOML syntax: ${(e as Error).message}`);
    }
  } else if (b.lang === "toml") {
    const named = /^\s*(\[taskset\]|taskset\s*=|taskset\.id\s*=)/m.test(b.body);
    // A fragment runs on reverse-text, whose default harness (null) drives no toolsets: the
    // config is validated against its plugins, so a fragment that names no harness gets "tools".
    const harnessed = /^\s*(\[harness\]|harness\s*=|harness\.id\s*=)/m.test(b.body);
    try {
      await loadConfig(
        named ? b.body : `${b.body}\n[taskset]\nid = "reverse-text"\n`,
        named || harnessed ? undefined : { "harness.id": "tools" },
        { baseDir: s.cwd },
      );
    } catch (e) {
      assert.fail(`${where(b)}: the TOML does not load as an envroll config: ${(e as Error).message}`);
    }
  } else assert.fail(`${where(b)}: no syntax check for "${b.lang || "plain text"}" blocks; mark it skip`);
}

async function runBlock(
  t: TestContext,
  b: Block,
  mark: Extract<Mark, { kind: "run" }>,
  s: Scratch,
): Promise<void> {
  if (!SHELL.has(b.lang)) assert.fail(`${where(b)}: only shell blocks run; mark it save FILE or syntax`);
  if (mark.needsPython.length > 0) {
    const r = spawnSync("python3", ["-c", `import ${mark.needsPython.join(", ")}`], {
      env: s.env,
      encoding: "utf8",
    });
    if (r.status !== 0) {
      t.skip(
        `python3 cannot import ${mark.needsPython.join(", ")} (node scripts/py-env.mjs builds .venv/ with them)`,
      );
      return;
    }
  }
  const script = checkedCommands(b.body).join("\n");
  const r = await runScript(script, s);
  assert.equal(
    r.code,
    0,
    `${where(b)}: the block exited ${r.code}:\n${script}\n--- output (tail)\n${r.out.slice(-3000)}`,
  );
}

for (const file of readmes(ROOT)) {
  test(`${file}: every example as written`, async (t) => {
    const all = readmeBlocks(ROOT, file);
    const s = newScratch();
    for (const b of all) {
      const mark = b.mark ?? defaultMark(b);
      const label = `${where(b)} ${b.lang || "text"}: ${mark.kind}${"why" in mark ? ` (${mark.why})` : ""}`;
      await t.test(label, { skip: mark.kind === "skip" ? mark.why : false }, async (st) => {
        if (mark.kind === "run") return runBlock(st, b, mark, s);
        await checkSyntax(b, mark, s, all);
        if (mark.kind === "save") {
          mkdirSync(dirname(join(s.cwd, mark.file)), { recursive: true });
          writeFileSync(join(s.cwd, mark.file), b.body);
        }
      });
    }
  });
}

test("every --envroll-* flag the READMEs mention is an envroll_miles option", () => {
  for (const file of readmes(ROOT)) {
    const text = readFileSync(join(ROOT, file), "utf8");
    for (const [i, line] of text.split("\n").entries())
      for (const m of line.matchAll(/(?<![\w-])--envroll-[a-z-]*[a-z]/g))
        assert.ok(miles.envroll.has(m[0]), `${file}:${i + 1}: ${m[0]} is not in envroll_miles' OPTIONS`);
  }
});

test("every `npx envroll COMMAND` the READMEs mention is a command", () => {
  const help = spawnSync(process.execPath, [BIN, "--help"], { encoding: "utf8" }).stdout;
  const commands = new Set([...help.matchAll(/^ {2}([a-z]+)\b/gm)].map((m) => m[1]!));
  assert.ok(commands.has("eval") && commands.has("export"), help);
  for (const file of readmes(ROOT)) {
    const text = readFileSync(join(ROOT, file), "utf8");
    for (const [i, line] of text.split("\n").entries())
      for (const m of line.matchAll(/npx envroll ([a-z][\w-]*)/g))
        assert.ok(commands.has(m[1]!), `${file}:${i + 1}: npx envroll ${m[1]} is not a command`);
  }
});
