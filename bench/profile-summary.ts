/**
 * Summarizes a V8 `.cpuprofile` (from `node --cpu-prof`) as self time per function, so hot
 * spots can be quoted as `file:function  %`. Used to profile the figures that miss their target
 * (see bench/README.md). Usage:
 *   node --import tsx bench/profile-summary.ts PROFILE.cpuprofile [TOP=25] [--inclusive] [--skip-ms=N]
 * --skip-ms drops the first N ms of samples (start-up: module loading, the tokenizer's JSON),
 * so percentages are of the steady state; profile-rollouts.ts prints the N to use.
 */
import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { ROOT } from "./lib/child.ts";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, topArg] = process.argv.slice(2).filter((a) => !a.startsWith("--"));
if (!file) throw new Error("usage: profile-summary.ts PROFILE.cpuprofile [TOP] [--inclusive]");
const inclusive = process.argv.includes("--inclusive");
const skipMs = Number(process.argv.find((a) => a.startsWith("--skip-ms="))?.slice(10) ?? 0);
const top = Number(topArg ?? 25);
if (!Number.isInteger(top)) throw new Error(`TOP must be a number, got ${topArg} (pass one profile)`);
const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

function label(n: ProfileNode): string {
  const { functionName, url, lineNumber } = n.callFrame;
  if (!url) return functionName || "(anonymous)";
  const path = url.startsWith("file://") ? relative(ROOT, new URL(url).pathname) : url;
  return `${path}:${functionName || "(anonymous)"}:${lineNumber + 1}`;
}

const time = new Map<string, number>();
let total = 0;
let elapsed = 0;
for (let i = 0; i < profile.samples.length; i++) {
  const dt = profile.timeDeltas[i] ?? 0;
  elapsed += dt;
  if (elapsed < skipMs * 1000) continue;
  total += dt;
  const node = byId.get(profile.samples[i]!)!;
  if (!inclusive) {
    time.set(label(node), (time.get(label(node)) ?? 0) + dt);
    continue;
  }
  // Inclusive: every distinct frame on the sampled stack gets the sample once.
  const seen = new Set<string>();
  for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
    const l = label(byId.get(id)!);
    if (seen.has(l)) continue;
    seen.add(l);
    time.set(l, (time.get(l) ?? 0) + dt);
  }
}
const busy = total - (time.get("(idle)") ?? 0);
process.stdout.write(
  `${inclusive ? "inclusive" : "self"} time; total ${(total / 1000).toFixed(0)} ms, busy ${(busy / 1000).toFixed(0)} ms (% of busy)\n`,
);
for (const [l, t] of [...time].sort((a, b) => b[1] - a[1]).slice(0, top)) {
  if (l === "(idle)") continue;
  process.stdout.write(
    `${((100 * t) / busy).toFixed(1).padStart(5)}%  ${(t / 1000).toFixed(0).padStart(6)} ms  ${l}\n`,
  );
}
