/**
 * Allocation profile of figure 1's single-turn rollouts (b): V8's sampling heap profiler with
 * the objects scavenges and mark-compacts already collected kept in, so it counts what was
 * allocated, not what survived — young-generation GC cost follows the allocation rate.
 *   node --import tsx bench/alloc-rollouts.ts [N=4000] [TOP=30]
 * Prints bytes allocated per rollout, then the top functions by self and inclusive bytes.
 * Writes the profile to /tmp/envroll-alloc.heapprofile (open it in Chrome DevTools).
 */
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { spawnTs, stop, waitForLine } from "./lib/child.ts";
import { note } from "./lib/report.ts";
import { environment, timedEval, trainClient } from "./lib/workloads.ts";
import { CONCURRENCY } from "./throughput.ts";

interface HeapNode {
  callFrame: { functionName: string; url: string };
  selfSize: number;
  children: HeapNode[];
}

const count = Number(process.argv[2] ?? 4000);
const top = Number(process.argv[3] ?? 30);
const engine = spawnTs("bench/engine-child.ts");
try {
  const url = (await waitForLine(engine, /listening on (\S+)/))[1]!;
  const env = await environment("reverse-text", CONCURRENCY);
  const client = trainClient(url);
  await timedEval(env, client, 1000);
  const session = new Session();
  session.connect();
  await session.post("HeapProfiler.startSampling", {
    samplingInterval: 1024,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  } as never);
  await timedEval(env, client, count);
  const { profile } = (await session.post("HeapProfiler.stopSampling")) as { profile: { head: HeapNode } };
  writeFileSync("/tmp/envroll-alloc.heapprofile", JSON.stringify(profile));
  await env.close();
  await client.close();

  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const name = (n: HeapNode) =>
    `${n.callFrame.functionName || "(anonymous)"} ${n.callFrame.url.replace(/^.*?\/(packages|node_modules|bench)\//, "$1/")}`;
  const walk = (n: HeapNode, onStack: Set<string>): number => {
    const key = name(n);
    self.set(key, (self.get(key) ?? 0) + n.selfSize);
    const fresh = !onStack.has(key);
    if (fresh) onStack.add(key);
    let total = n.selfSize;
    for (const c of n.children) total += walk(c, onStack);
    if (fresh) {
      onStack.delete(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + total);
    }
    return total;
  };
  const total = walk(profile.head, new Set());
  const kb = (b: number) => `${(b / count / 1024).toFixed(2).padStart(7)} KB`;
  note(`${count} rollouts: ${kb(total).trim()} allocated per rollout (sampled)`);
  for (const [title, m] of [
    ["self", self],
    ["inclusive", inclusive],
  ] as const) {
    note(`--- ${title}, per rollout`);
    for (const [k, v] of [...m].sort((x, y) => y[1] - x[1]).slice(0, top)) note(`${kb(v)}  ${k}`);
  }
} finally {
  await stop(engine);
}
