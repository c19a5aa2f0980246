/**
 * Grader-owned files (issue 36): tests, expected outputs, answer keys a taskset declares with
 * `graderFiles`. The agent never sees them — they are put into the rollout's working folder only
 * after its program has exited, everything it started was ended (Runtime.reap) and `finalize`
 * ran, just before scoring. Whatever the agent left at those paths is removed first, not written
 * through: a planted `tests/check.sh -> /dev/null` would otherwise swallow the real test (an empty
 * script passes), and on the host a symlink to one of the user's files would have envroll
 * overwrite it. A parent folder that is a symlink or a file is replaced by a real folder the same
 * way. Per path, `info.grader_files` says what was there (placed / intact / replaced) and
 * `info.guard` what was undone.
 */
import type { Stats } from "node:fs";
import { chmod, lstat, readdir, readFile, readlink, rm, unlink } from "node:fs/promises";
import { isAbsolute, join, normalize, sep } from "node:path";
import { TaskError } from "./errors.ts";
import type { Runtime } from "./runtimes/runtime.ts";
import type { HandlerContext, Taskset } from "./task.ts";
import { noteGuard } from "./trace/guard.ts";
import type { TaskData } from "./types.ts";

/** Per path: nothing was there, the grader's own bytes were, or the agent had left something else. */
export type GraderFileStatus = "placed" | "intact" | "replaced";

async function lstatOrNull(path: string): Promise<Stats | null> {
  try {
    return await lstat(path);
  } catch {
    return null;
  }
}

/** rm -rf that also gets through folders the agent made unwritable (chmod 0 is its to undo). */
async function forceRemove(path: string): Promise<void> {
  try {
    await rm(path, { recursive: true, force: true });
  } catch {
    await openUp(path);
    await rm(path, { recursive: true, force: true });
  }
}

async function openUp(path: string): Promise<void> {
  const st = await lstatOrNull(path);
  if (!st?.isDirectory()) return;
  await chmod(path, 0o700).catch(() => {});
  for (const name of await readdir(path).catch(() => [])) await openUp(join(path, name));
}

function what(st: Stats): string {
  return st.isSymbolicLink() ? "symlink" : st.isDirectory() ? "folder" : "file";
}

/** Makes `path` free for a fresh write: parents real folders, nothing at the leaf. */
async function clear(root: string, path: string, data: Uint8Array, trace: HandlerContext<any>["trace"]) {
  const rel = normalize(path);
  if (isAbsolute(rel) || rel === ".." || rel.startsWith(`..${sep}`))
    throw new TaskError(`graderFiles: "${path}" is not a path inside the working folder`);
  const parts = rel.split(sep);
  let cur = root;
  for (const part of parts.slice(0, -1)) {
    cur = join(cur, part);
    const st = await lstatOrNull(cur);
    if (st === null) break; // the runtime's write creates the rest
    if (st.isDirectory()) continue;
    const was = st.isSymbolicLink() ? ` -> ${await readlink(cur).catch(() => "?")}` : "";
    await forceRemove(cur);
    noteGuard(trace, `grader file ${path}: the agent's ${what(st)} ${relFrom(root, cur)}${was} removed`);
    break; // nothing below it exists any more
  }
  const leaf = join(root, rel);
  const st = await lstatOrNull(leaf);
  if (st === null) return "placed";
  if (st.isFile()) {
    const same = await readFile(leaf).then(
      (b) => Buffer.compare(b, Buffer.from(data)) === 0,
      () => false,
    );
    await unlink(leaf).catch(() => forceRemove(leaf));
    if (same) return "intact";
    noteGuard(trace, `grader file ${path}: the agent's version replaced`);
    return "replaced";
  }
  const was = st.isSymbolicLink() ? ` -> ${await readlink(leaf).catch(() => "?")}` : "";
  await forceRemove(leaf);
  noteGuard(trace, `grader file ${path}: the agent's ${what(st)}${was} removed`);
  return "replaced";
}

function relFrom(root: string, full: string): string {
  return full.slice(root.length + 1);
}

export async function placeGraderFiles<D extends TaskData>(
  taskset: Taskset<D, any>,
  ctx: HandlerContext<D>,
): Promise<void> {
  const declare = taskset.graderFiles;
  if (!declare) return;
  const files = await declare(ctx.task);
  const runtime: Runtime | null = ctx.runtime;
  if (!runtime) throw new TaskError(`taskset "${taskset.id}": graderFiles need the rollout's runtime`);
  const status: Record<string, GraderFileStatus> = {};
  for (const [path, data] of Object.entries(files)) {
    const bytes = typeof data === "string" ? Buffer.from(data) : data;
    status[path] = await clear(runtime.workdir, path, bytes, ctx.trace);
    await runtime.writeFile(path, data);
  }
  ctx.trace.info["grader_files"] = status;
}
