/**
 * The host files a harness program is started from (`harness.command = ["python3",
 * "/home/me/agent.py"]`), shown read-only inside the sandbox at the same path.
 *
 * Running as root, envroll drops to the sandbox uid before bubblewrap starts (userns mode), and
 * bubblewrap then opens each bind source as that uid: a file in a folder only root may enter (a
 * 0700 temp folder, /root) cannot be bound directly. Such a file is copied into a staging folder
 * the sandbox uid can read, and the copy is bound at the original path. Files the sandbox uid can
 * already reach are bound in place (no copy of a large argument file per rollout).
 *
 * A program also needs what it imports: a Node script resolves packages from the `node_modules`
 * folders above it, a Python interpreter inside a virtual environment reads that environment's
 * site-packages. Those folders (code, never task data) are shown read-only too, in place, when
 * the sandbox uid can reach them; otherwise the program's import error says what to bind.
 */
import { existsSync, type Stats, statSync } from "node:fs";
import { chmod, copyFile, mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { isRoot } from "./command.ts";
import type { SandboxSpec } from "./spec.ts";

export interface ProgramFiles {
  /** [source on the host, path inside the sandbox]. */
  binds: (readonly [string, string])[];
  remove(): Promise<void>;
}

/** Whether `owner` may use `st` for `bit` (4 read, 1 search) by the owner/group/other rule. */
function permits(st: Stats, owner: Pick<SandboxSpec, "uid" | "gid">, bit: number): boolean {
  if (st.uid === owner.uid) return (st.mode & (bit << 6)) !== 0;
  if (st.gid === owner.gid) return (st.mode & (bit << 3)) !== 0;
  return (st.mode & bit) !== 0;
}

/** Whether the sandbox identity can open `file` on the host: every folder above it searchable, the file readable. */
export function reachable(file: string, owner: Pick<SandboxSpec, "uid" | "gid">): boolean {
  try {
    if (!permits(statSync(file), owner, 4)) return false;
    for (let dir = dirname(file); ; dir = dirname(dir)) {
      if (!permits(statSync(dir), owner, 1)) return false;
      if (dir === dirname(dir)) return true;
    }
  } catch {
    return false;
  }
}

/** The `node_modules` folders above `file` and the virtual environment it sits in, if any. */
export function importRoots(file: string): string[] {
  const roots: string[] = [];
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    const modules = join(dir, "node_modules");
    if (existsSync(modules) && statSync(modules).isDirectory()) roots.push(modules);
    if (existsSync(join(dir, "pyvenv.cfg"))) roots.push(dir);
    if (dir === dirname(dir)) return roots;
  }
}

export async function showProgramFiles(files: readonly string[], spec: SandboxSpec): Promise<ProgramFiles> {
  // Folders first: a program file inside one (a venv's bin/python) is bound over it afterwards.
  const roots = new Set(files.flatMap(importRoots).filter((d) => !d.startsWith("/usr/")));
  const binds: (readonly [string, string])[] = [...roots]
    .filter((d) => !isRoot() || reachable(d, spec))
    .map((d) => [d, d] as const);
  let staging: string | null = null;
  for (const [i, file] of files.entries()) {
    if (!isRoot() || reachable(file, spec)) {
      binds.push([file, file]);
      continue;
    }
    staging ??= await mkdtemp(join(tmpdir(), "envroll-program-files-"));
    const dir = join(staging, String(i));
    await mkdir(dir);
    const copy = join(dir, basename(file));
    await copyFile(file, copy);
    // Readable (and executable when it was) by anyone: it is a copy of what the program runs.
    const mode = statSync(file).mode & 0o111 ? 0o555 : 0o444;
    await chmod(copy, mode);
    await chmod(dir, 0o755);
    await chmod(staging, 0o755);
    binds.push([copy, file]);
  }
  const root = staging;
  return {
    binds,
    remove: async () => (root === null ? undefined : rm(root, { recursive: true, force: true })),
  };
}
