/**
 * Where the real verifiers v0.2.0 is: `VERIFIERS_SRC` (an extracted v0.2.0) and `MCP_SRC`
 * (python-sdk v1.27.0's `src/`), with the interpreter `ENVROLL_TASKSET_PYTHON` (default
 * python3) holding verifiers' dependencies (or their stand-ins on PYTHONPATH). Tests that need
 * them skip, saying why, when `import verifiers.v1` fails there.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";

export interface RealV1 {
  python: string;
  /** sys.path entries for the host: verifiers, mcp 1.x and the named environments' folders. */
  path(...envs: string[]): string[];
  /** The config's `python = { … }` line that runs the host with the named environments importable. */
  pythonToml(...envs: string[]): string;
  src: string;
}

function probe(): RealV1 | string {
  const src = process.env["VERIFIERS_SRC"];
  const mcp = process.env["MCP_SRC"];
  if (!src || !mcp)
    return "set VERIFIERS_SRC (verifiers v0.2.0 source) and MCP_SRC (python-sdk v1.27.0 src/) to run";
  const python = process.env["ENVROLL_TASKSET_PYTHON"] || "python3";
  const base = [mcp, src];
  const r = spawnSync(python, ["-c", "import verifiers.v1, datasets"], {
    encoding: "utf8",
    env: { ...process.env, PYTHONPATH: [...base, process.env["PYTHONPATH"]].filter(Boolean).join(":") },
  });
  if (r.status !== 0) {
    const last = `${r.stderr ?? r.error?.message ?? ""}`.trim().split("\n").at(-1);
    return `${python} cannot import verifiers.v1 from ${src}: ${last}`;
  }
  const path = (...envs: string[]) => [...base, ...envs.map((e) => join(src, "environments", e))];
  const pythonToml = (...envs: string[]) =>
    `python = { executable = ${JSON.stringify(python)}, path = ${JSON.stringify(path(...envs))} }`;
  return { python, src, path, pythonToml };
}

export const realV1 = probe();
/** `{ skip: reason }` for node:test when the real verifiers is not available. */
export const needsRealV1 = typeof realV1 === "string" ? { skip: realV1 } : {};
export function real(): RealV1 {
  if (typeof realV1 === "string") throw new Error(realV1);
  return realV1;
}
