#!/usr/bin/env node
/**
 * The project's Python environment: `.venv/` at the repository root holding python/envroll_engine
 * and python/envroll_miles (editable) plus scripts/py-test-requirements.txt. Built on first use,
 * then reused until one of those files or the base interpreter changes (a hash of them is stamped
 * in .venv), so `npm test`, `npm run e2e` and CI never install into the global interpreter.
 *
 *   node scripts/py-env.mjs            ensure .venv; quiet when it is up to date
 *   node scripts/py-env.mjs --print    … then print the venv's python path on stdout
 *
 * $ENVROLL_PYTHON names the interpreter the venv is made from (default python3, ≥ 3.11).
 * Every failure is one line on stderr and exit status 1.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const VENV = join(ROOT, ".venv");
const VENV_PYTHON = join(VENV, "bin", "python");
const STAMP = join(VENV, ".envroll-py-env");
const BASE_PYTHON = process.env.ENVROLL_PYTHON || "python3";
const PACKAGES = ["python/envroll_engine", "python/envroll_miles"];
/** Optional extras installed with a package (ray: the Ray-actor replica test runs instead of skipping). */
const EXTRAS = { "python/envroll_miles": "[ray]" };
const REQUIREMENTS = "scripts/py-test-requirements.txt";
/** What the venv's content depends on; a change to any of them reinstalls. */
const INPUTS = [...PACKAGES.map((p) => `${p}/pyproject.toml`), REQUIREMENTS];

class SetupError extends Error {}

const log = (msg) => process.stderr.write(`py-env: ${msg}\n`);

/** Runs a command; returns its result or throws SetupError with one line. */
function run(cmd, args, what) {
  const r = spawnSync(cmd, args, { cwd: ROOT, encoding: "utf8" });
  if (r.error) {
    const hint = r.error.code === "ENOENT" ? " (not found; install Python ≥ 3.11 or set ENVROLL_PYTHON)" : "";
    throw new SetupError(`${what}: cannot run ${cmd}: ${r.error.message}${hint}`);
  }
  if (r.status !== 0) {
    const last = `${r.stderr ?? ""}`.trim().split("\n").at(-1) ?? "";
    throw new SetupError(`${what} failed (exit ${r.status})${last ? `: ${last}` : ""}`);
  }
  return r;
}

function pythonVersion(python, what) {
  const r = run(python, ["-c", "import sys; print(sys.version)"], what);
  return r.stdout.trim();
}

function stampOf(baseVersion) {
  // The checkout's path too: the editable installs point into it, so a .venv copied from another
  // checkout (a worktree seeded from a sibling's) would import that checkout's Python code.
  const h = createHash("sha256").update(`python ${baseVersion}\n`).update(`root ${ROOT}\n`);
  for (const f of INPUTS) h.update(`${f}\n`).update(readFileSync(join(ROOT, f)));
  return h.digest("hex");
}

function ensure() {
  const baseVersion = pythonVersion(BASE_PYTHON, "checking the Python interpreter");
  const [major, minor] = baseVersion.split(/[ .]/).map(Number);
  if (major < 3 || (major === 3 && minor < 11))
    throw new SetupError(
      `${BASE_PYTHON} is Python ${baseVersion.split(" ")[0]}; envroll_engine needs ≥ 3.11`,
    );
  const want = stampOf(baseVersion);
  if (existsSync(VENV_PYTHON) && existsSync(STAMP) && readFileSync(STAMP, "utf8").trim() === want) return;

  const t0 = performance.now();
  const fresh =
    !existsSync(VENV_PYTHON) ||
    (() => {
      try {
        return pythonVersion(VENV_PYTHON, "checking .venv") !== baseVersion;
      } catch {
        return true;
      }
    })();
  if (fresh) {
    log(`creating ${relative(process.cwd(), VENV) || "."} (first run: torch CPU and transformers, ~1-2 min)`);
    run(BASE_PYTHON, ["-m", "venv", "--clear", VENV], `${BASE_PYTHON} -m venv`);
  } else {
    log(`${INPUTS.join(", ")} changed: reinstalling into .venv`);
  }
  rmSync(STAMP, { force: true });
  const pip = [
    ...["-m", "pip", "install", "-q", "--disable-pip-version-check"],
    ...PACKAGES.flatMap((p) => ["-e", `${p}${EXTRAS[p] ?? ""}`]),
    ...["-r", REQUIREMENTS],
  ];
  // pip retries an unreachable index 5 times with back-off, per package: ~5 min offline (a local
  // wheel index only). One retry costs nothing offline and still rides out a network blip.
  const env = { ...process.env, PIP_RETRIES: process.env.PIP_RETRIES ?? "1" };
  const r = spawnSync(VENV_PYTHON, pip, { cwd: ROOT, encoding: "utf8", env, maxBuffer: 64 << 20 });
  if (r.status !== 0) {
    // pip's own messages (a resolver conflict, a missing index) are what a user needs here.
    process.stderr.write(`${r.stdout ?? ""}${r.stderr ?? ""}`.split("\n").slice(-40).join("\n"));
    throw new SetupError(
      `pip install into .venv failed (exit ${r.status ?? r.error?.message}; its messages above)`,
    );
  }
  writeFileSync(STAMP, `${want}\n`);
  log(`.venv ready in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
}

try {
  ensure();
  if (process.argv.includes("--print")) process.stdout.write(`${VENV_PYTHON}\n`);
} catch (e) {
  if (!(e instanceof SetupError)) throw e;
  log(e.message);
  process.exit(1);
}
