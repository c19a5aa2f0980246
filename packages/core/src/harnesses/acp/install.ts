/**
 * Agents and their ACP adapters come from npm at pinned versions, installed on first use into a
 * cache shared by every rollout and run (`~/.cache/envroll/agents/<key>`, or
 * `$ENVROLL_AGENT_CACHE`), never into the clone and never at import time: an install is
 * hundreds of MB (Codex's and Claude Code's native binaries), so it happens once per machine.
 * Concurrent rollouts and processes meet at a lock folder; a `.ready` marker, written last,
 * says the folder is complete (an interrupted install is redone, not trusted).
 */
import { existsSync } from "node:fs";
import { chmod, mkdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { basename, join } from "node:path";
import { HarnessError } from "../../errors.ts";
import { spawnProgram } from "../../runtimes/spawn.ts";

/** A lock older than this belongs to an install that died; it is broken. */
const STALE_LOCK_MS = 20 * 60_000;
const INSTALL_TIMEOUT_MS = 30 * 60_000;

export function agentCacheRoot(): string {
  return process.env["ENVROLL_AGENT_CACHE"] || join(homedir(), ".cache", "envroll", "agents");
}

/** `@agentclientprotocol/codex-acp@2.6.0` → `codex-acp@2.6.0`; several specs join with `+`. */
export function cacheKey(packages: readonly string[]): string {
  return packages.map((p) => p.replace(/^@[^/]+\//, "").replace(/[^A-Za-z0-9._@+-]/g, "_")).join("+");
}

/** Where an installed package's executable lives. */
export function binPath(dir: string, name: string): string {
  return join(dir, "node_modules", ".bin", name);
}

const installing = new Map<string, Promise<string>>();

/** The folder holding `packages` installed; installs them first when it is not ready. */
export function ensureInstalled(packages: readonly string[]): Promise<string> {
  const dir = join(agentCacheRoot(), cacheKey(packages));
  let pending = installing.get(dir);
  if (!pending) {
    pending = install(dir, packages);
    installing.set(dir, pending);
    // A failed install is retried by the next rollout rather than cached as a failure.
    pending.catch(() => installing.delete(dir));
  }
  return pending;
}

async function isReady(dir: string, packages: readonly string[]): Promise<boolean> {
  try {
    return JSON.parse(await readFile(join(dir, ".ready"), "utf8")).join("\n") === packages.join("\n");
  } catch {
    return false;
  }
}

async function install(dir: string, packages: readonly string[]): Promise<string> {
  if (await isReady(dir, packages)) return dir;
  await mkdir(dir, { recursive: true });
  const lock = `${dir}.lock`;
  await acquire(lock);
  try {
    if (await isReady(dir, packages)) return dir;
    await rm(join(dir, ".ready"), { force: true });
    if (!existsSync(join(dir, "package.json")))
      await writeFile(join(dir, "package.json"), '{"private":true}\n');
    const argv = [
      "npm",
      "install",
      "--prefix",
      dir,
      // The agents' native binaries arrive as platform optional dependencies; no script runs.
      "--ignore-scripts",
      "--omit=dev",
      "--no-audit",
      "--no-fund",
      "--no-save",
      ...packages,
    ];
    const r = await spawnProgram(argv, {
      cwd: dir,
      env: Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] != null)),
      timeoutMs: INSTALL_TIMEOUT_MS,
      outputLimitBytes: 1 << 20,
      killOnOutputLimit: false,
    });
    if (r.exitCode !== 0)
      throw new HarnessError(
        `installing ${packages.join(" ")} into ${dir} failed (${r.timedOut ? "timed out" : `exit ${r.exitCode}`}): ${(r.stderr || r.stdout).slice(-1500)}`,
      );
    await writeFile(join(dir, ".ready"), `${JSON.stringify(packages)}\n`);
    return dir;
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
}

async function acquire(lock: string): Promise<void> {
  for (;;) {
    try {
      await mkdir(lock);
      return;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
    try {
      if (Date.now() - (await stat(lock)).mtimeMs > STALE_LOCK_MS)
        await rm(lock, { recursive: true, force: true });
    } catch {
      // Released between the mkdir and the stat: try again at once.
      continue;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}

/**
 * The installed folder `dir` where a sandbox's unprivileged user can open it: the cache under a
 * 0700 home (root's) cannot be shown inside, so it is mirrored once per machine into
 * `/var/tmp/envroll-agents/<key>` (or `$ENVROLL_AGENT_MIRROR`) as hard links (no copy of the
 * ~400 MB per agent; a plain copy where links cannot cross filesystems), behind the same lock
 * and `.ready` marker as an install.
 */
export async function readableMirror(dir: string, packages: readonly string[]): Promise<string> {
  const root = process.env["ENVROLL_AGENT_MIRROR"] || "/var/tmp/envroll-agents";
  const mirror = join(root, basename(dir));
  if (await isReady(mirror, packages)) return mirror;
  await mkdir(root, { recursive: true, mode: 0o755 });
  await chmod(root, 0o755);
  const lock = `${mirror}.lock`;
  await acquire(lock);
  try {
    if (await isReady(mirror, packages)) return mirror;
    await rm(mirror, { recursive: true, force: true });
    const env = { PATH: process.env["PATH"] ?? "/usr/bin:/bin" };
    const opts = {
      cwd: root,
      env,
      timeoutMs: INSTALL_TIMEOUT_MS,
      outputLimitBytes: 1 << 16,
      killOnOutputLimit: false,
    };
    let r = await spawnProgram(["cp", "-al", dir, mirror], opts);
    if (r.exitCode !== 0) {
      await rm(mirror, { recursive: true, force: true });
      r = await spawnProgram(["cp", "-a", dir, mirror], opts);
    }
    if (r.exitCode !== 0)
      throw new HarnessError(
        `mirroring ${dir} into ${mirror} for the sandbox failed: ${r.stderr.slice(-1000)}`,
      );
    await chmod(mirror, 0o755);
    await writeFile(join(mirror, ".ready"), `${JSON.stringify(packages)}\n`);
    return mirror;
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
}
