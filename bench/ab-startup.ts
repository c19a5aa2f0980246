/**
 * Side by side: the built CLI of two (or more) checkouts from spawn to its first `/generate`
 * (`envroll eval reverse-text -n 1 -r 1 --engine URL`, as `startup_first_rollout_ms_built` takes
 * it, with the bin the CLI package names), runs alternating so both see the same machine load. Per side: medians of wall ms, CPU ms
 * (/proc, 10 ms ticks) and minor page faults at that request; then the median per-round ratio
 * B/A of the first two. Build each checkout first (`npm run build`); one warm-up run per side
 * fills its tokenizer and code caches.
 *   node --import tsx bench/ab-startup.ts /path/to/main-checkout . [ROUNDS=10]
 * The children get a temp folder of their own (TMPDIR): the tokenizer cache skips checkouts
 * under the temp folder, so a checkout in /tmp would otherwise parse tokenizer.json every run.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { builtinReferenceBook } from "../packages/core/src/references.ts";
import { type PolicyFn, referencePolicy, startEngine } from "../packages/engine/src/index.ts";
import { cliBinPath, procCpuMs, procMinorFaults, runNode } from "./lib/child.ts";
import { median, note } from "./lib/report.ts";

const args = process.argv.slice(2);
const rounds = /^\d+$/.test(args.at(-1) ?? "") ? Number(args.pop()) : 10;
const roots = args.map((r) => resolve(r));
if (roots.length < 2) throw new Error("usage: ab-startup.ts CHECKOUT_A CHECKOUT_B [...] [ROUNDS]");

interface Sample {
  wall: number;
  cpu: number;
  faults: number;
}

const reference = referencePolicy((await builtinReferenceBook()).answer);
let first: (Sample & { at: number }) | null = null;
let child: number | undefined;
const policy: PolicyFn = (ctx) => {
  first ??= { at: performance.now(), wall: 0, cpu: procCpuMs(child), faults: procMinorFaults(child) };
  return reference(ctx);
};
const engine = await startEngine({ policy, latencyMs: 0, tokenLatencyMs: 0 });
const dir = mkdtempSync(join(tmpdir(), "envroll-ab-startup-"));
const env = { ...process.env, TMPDIR: dir, ENVROLL_FROM_SOURCE: "0" };

async function once(root: string): Promise<Sample> {
  first = null;
  let t0 = 0;
  const bin = join(root, "packages/cli", cliBinPath(root));
  const argv = [bin, "eval", "reverse-text", "-n", "1", "-r", "1", "--engine", engine.url];
  await runNode([...argv, "--client.renderer", "qwen3", "-o", join(dir, "out")], {
    cwd: dir,
    env,
    onSpawn: (t, pid) => {
      t0 = t;
      child = pid;
    },
  });
  if (first === null) throw new Error(`${root}: the eval never reached /generate`);
  const f = first as Sample & { at: number };
  return { wall: f.at - t0, cpu: f.cpu, faults: f.faults };
}

try {
  const samples: Sample[][] = roots.map(() => []);
  for (const root of roots) await once(root);
  for (let r = 0; r < rounds; r++) {
    // Alternate which side goes first, so a load swing does not always land on one side.
    const order = r % 2 ? [...roots.keys()].reverse() : [...roots.keys()];
    for (const i of order) samples[i]!.push(await once(roots[i]!));
  }
  const stat = (s: Sample[], k: keyof Sample) => median(s.map((x) => x[k]));
  for (const [i, root] of roots.entries()) {
    const s = samples[i]!;
    note(
      `${root}: first /generate at ${stat(s, "wall").toFixed(0)} ms wall, ${stat(s, "cpu")} ms CPU, ${stat(s, "faults")} minor faults (median of ${s.length})`,
    );
  }
  const [a, b] = samples as [Sample[], Sample[]];
  const paired = (k: keyof Sample) => median(a.map((x, i) => b[i]![k] / x[k])).toFixed(3);
  note(`paired B/A per round: wall ${paired("wall")}, CPU ${paired("cpu")}, faults ${paired("faults")}`);
} finally {
  await engine.close();
  rmSync(dir, { recursive: true, force: true });
}
