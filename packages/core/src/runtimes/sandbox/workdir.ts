/**
 * The host side of a sandbox's working directory.
 *
 * The program inside can create symlinks in its workdir, and the host reads and writes that
 * directory as root afterwards — so every host access resolves the real path and refuses
 * anything that lands outside the workdir (a planted `out.txt -> /etc/shadow` must not be
 * readable through `readFile`). No sandboxed process runs between a `run` and the next host
 * access, so the check cannot be raced.
 */
import { constants } from "node:fs";
import { chmod, chown, lstat, mkdir, mkdtemp, open, readFile, realpath } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { SandboxError } from "../../errors.ts";
import { isRoot } from "./command.ts";

export interface Owner {
  uid: number;
  gid: number;
}

/**
 * A fresh directory owned by the sandbox identity (when we are root and can chown). Mode 0711:
 * in "rootns" mode bubblewrap runs as root *without* CAP_DAC_OVERRIDE and must still be able to
 * traverse it to chdir; nobody else can list it.
 */
export async function createWorkdir(owner: Owner): Promise<string> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), "envroll-sandbox-")));
  if (isRoot()) {
    await chown(dir, owner.uid, owner.gid);
    await chmod(dir, 0o711);
  }
  return dir;
}

function inside(root: string, full: string): boolean {
  const rel = relative(root, full);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/** The lexical path, refused if it escapes the workdir. */
export function lexicalPath(root: string, path: string): string {
  const full = resolve(root, path);
  if (!inside(root, full)) throw new SandboxError(`path escapes the workdir: ${path}`);
  return full;
}

/** The real path of an existing file or directory, refused if a symlink leads out. */
async function realInside(root: string, full: string, path: string): Promise<string> {
  const real = await realpath(full);
  if (!inside(root, real)) throw new SandboxError(`path resolves outside the workdir: ${path}`);
  return real;
}

/** mkdir -p inside the workdir, checking each existing ancestor's real path; new dirs get the owner. */
async function ensureDir(root: string, dir: string, path: string, owner: Owner): Promise<string> {
  const rel = relative(root, dir);
  let cur = root;
  for (const part of rel === "" ? [] : rel.split("/")) {
    const next = join(cur, part);
    try {
      await lstat(next);
    } catch {
      await mkdir(next);
      if (isRoot()) await chown(next, owner.uid, owner.gid);
    }
    cur = await realInside(root, next, path);
  }
  return cur;
}

export async function writeInside(root: string, path: string, data: string | Uint8Array, owner: Owner) {
  const full = lexicalPath(root, path);
  if (full === root) throw new SandboxError(`cannot write the workdir itself: ${path}`);
  const dir = await ensureDir(root, dirname(full), path, owner);
  const target = join(dir, full.slice(dirname(full).length + 1));
  // O_NOFOLLOW: a symlink planted at the target name is refused rather than followed.
  const fh = await open(
    target,
    constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW,
    0o644,
  );
  try {
    await fh.writeFile(data);
    if (isRoot()) await fh.chown(owner.uid, owner.gid);
  } finally {
    await fh.close();
  }
}

export async function readInside(root: string, path: string): Promise<Uint8Array> {
  const full = lexicalPath(root, path);
  return new Uint8Array(await readFile(await realInside(root, full, path)));
}
