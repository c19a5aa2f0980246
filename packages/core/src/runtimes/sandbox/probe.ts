/**
 * Finds bubblewrap and the util-linux helpers and decides, once per process, which sandbox mode
 * this host supports — by actually starting a trivial sandbox, because whether user namespaces
 * work depends on kernel settings, seccomp profiles and container runtimes that cannot be read
 * reliably from outside.
 */
import { execFile } from "node:child_process";
import { accessSync, chmodSync, chownSync, constants, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import {
  type BwrapFeatures,
  bwrapCommand,
  bwrapFeatures,
  isRoot,
  type SandboxMode,
  type SandboxTools,
} from "./command.ts";
import { SandboxSpecSchema } from "./spec.ts";

export type ProbeResult =
  | { ok: true; mode: SandboxMode; tools: SandboxTools; features: BwrapFeatures }
  | { ok: false; reason: string; tools: Partial<SandboxTools> };

const SEARCH = ["/usr/bin", "/bin", "/usr/sbin", "/sbin", "/usr/local/bin"];

export function which(name: string): string | null {
  const dirs = [...(process.env["PATH"] ?? "").split(delimiter).filter(Boolean), ...SEARCH];
  for (const dir of dirs) {
    const p = executable(join(dir, name));
    if (p) return p;
  }
  return null;
}

/** Runs a command; resolves its stdout, or an error description. */
function tryRun(argv: string[]): Promise<{ ok: true; out: string } | { ok: false; error: string }> {
  return new Promise((resolve) => {
    execFile(
      argv[0]!,
      argv.slice(1),
      { timeout: 10_000, env: { PATH: "/usr/bin:/bin" } },
      (err, out, stderr) =>
        resolve(
          err
            ? { ok: false, error: `${err.message.split("\n")[0]} ${String(stderr).trim()}`.trim() }
            : { ok: true, out: String(out) },
        ),
    );
  });
}

export interface ProbeRequest {
  /** bubblewrap binary; null searches PATH. */
  bwrap: string | null;
  mode: "auto" | SandboxMode;
}

function executable(path: string): string | null {
  try {
    accessSync(path, constants.X_OK);
    return path;
  } catch {
    return null;
  }
}

async function probeOnce(req: ProbeRequest): Promise<ProbeResult> {
  const found = {
    bwrap: req.bwrap === null ? which("bwrap") : executable(req.bwrap),
    prlimit: which("prlimit"),
    setpriv: which("setpriv"),
  };
  const partial = Object.fromEntries(Object.entries(found).filter(([, v]) => v)) as Partial<SandboxTools>;
  if (!found.bwrap)
    return {
      ok: false,
      reason:
        req.bwrap === null
          ? "bubblewrap (bwrap) is not installed (e.g. `apt-get install bubblewrap`)"
          : `bubblewrap not found at ${req.bwrap}`,
      tools: partial,
    };
  if (!found.prlimit || !found.setpriv)
    return { ok: false, reason: "util-linux prlimit/setpriv not found", tools: partial };
  const tools = found as SandboxTools;
  const help = await tryRun([tools.bwrap, "--help"]);
  const features = bwrapFeatures(help.ok ? help.out : "");
  const spec = SandboxSpecSchema.parse({});
  const dir = mkdtempSync(join(tmpdir(), "envroll-probe-"));
  if (isRoot()) {
    chownSync(dir, spec.uid, spec.gid);
    chmodSync(dir, 0o711);
  }
  const failures: string[] = [];
  try {
    // rootns needs CAP_SYS_ADMIN on the host side, so it is only worth trying as root.
    const modes: SandboxMode[] =
      req.mode !== "auto" ? [req.mode] : isRoot() ? ["userns", "rootns"] : ["userns"];
    for (const mode of modes) {
      const argv = bwrapCommand({ mode, tools, features, spec, workdir: dir, cwd: dir, argv: ["true"] });
      const r = await tryRun(argv);
      if (r.ok) return { ok: true, mode, tools, features };
      failures.push(`${mode}: ${r.error}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { ok: false, reason: `bubblewrap cannot create a sandbox here (${failures.join("; ")})`, tools };
}

const cache = new Map<string, Promise<ProbeResult>>();

/** The host's sandbox capability, probed on first use (per binary and mode). */
export function probeSandbox(req: ProbeRequest): Promise<ProbeResult> {
  const key = `${req.bwrap ?? ""}\0${req.mode}`;
  let p = cache.get(key);
  if (!p) {
    p = probeOnce(req);
    cache.set(key, p);
  }
  return p;
}
