/**
 * Figure 4 — retained memory while streaming episodes to traces.jsonl, for two workloads:
 *  - rss_growth_20k_to_100k: 100,000 single-turn reverse-text episodes (quick: 20,000);
 *  - tool_rss_growth_20k_to_100k: 100,000 8-turn tool episodes, every later turn bridged
 *    (quick: 4,000) — interception sessions, tool results and multi-turn trace graphs.
 * Each runs in a child under `--expose-gc` (memory-child.ts), sampled after a forced full GC
 * every 10 % of the run. The figure is (RSS at the end − RSS at the 20 % sample) / RSS at 20 %:
 * the first 20 % hold start-up, JIT warm-up and the allocator's one-time growth (RSS steps once
 * there and is flat after), so growth from 20 % on is what per-episode retention would show.
 * The growth from the 10 % sample and the JS heap's growth are reported alongside.
 */
import { runTs } from "./lib/child.ts";
import { type BenchOptions, type Figure, median } from "./lib/report.ts";

interface ChildResult {
  samples: { episodes: number; rss: number; heapUsed: number; heapTotal: number; external: number }[];
  errored: number;
  turns: number;
  bridged: number;
  traces_bytes: number;
  wall_s: number;
}

type Key = "rss" | "heapUsed" | "heapTotal";
const growth = (r: ChildResult, key: Key, from: number) => {
  const first = r.samples[from]![key];
  return (r.samples.at(-1)![key] - first) / first;
};
const mb = (b: number) => Math.round(b / 1e5) / 10;

async function workload(
  name: string,
  kind: "reverse" | "tools",
  episodes: number,
  reps: number,
): Promise<Figure> {
  const every = episodes / 10;
  const runs: ChildResult[] = [];
  for (let rep = 0; rep < reps; rep++) {
    const out = await runTs(
      "bench/memory-child.ts",
      [kind, String(episodes), String(every)],
      ["--expose-gc"],
    );
    runs.push(JSON.parse(out.trim().split("\n").at(-1)!) as ChildResult);
  }
  const rss = runs.map((r) => growth(r, "rss", 1));
  const value = median(rss);
  const first = runs[0]!;
  return {
    name,
    value,
    unit: "fraction",
    target: "<= 0.10",
    met: value <= 0.1,
    reps: rss,
    episodes,
    turns_per_episode: first.turns / episodes,
    bridged_turns: first.bridged,
    sample_every: every,
    rss_growth_from_10pct: median(runs.map((r) => growth(r, "rss", 0))),
    heap_used_growth_from_20pct: median(runs.map((r) => growth(r, "heapUsed", 1))),
    heap_total_growth_from_20pct: median(runs.map((r) => growth(r, "heapTotal", 1))),
    rss_20pct_mb: mb(first.samples[1]!.rss),
    rss_last_mb: mb(first.samples.at(-1)!.rss),
    errored: runs.reduce((s, r) => s + r.errored, 0),
    traces_mb: mb(first.traces_bytes),
    episodes_per_s: median(runs.map((r) => episodes / r.wall_s)),
    series: first.samples.map((s) => ({
      episodes: s.episodes,
      rss_mb: mb(s.rss),
      heap_used_mb: mb(s.heapUsed),
      heap_total_mb: mb(s.heapTotal),
      external_mb: mb(s.external),
    })),
  };
}

export async function memory(o: BenchOptions): Promise<Figure[]> {
  // The full run's 100k episodes take minutes per child: at most 3 reverse-text repetitions, and
  // one tool run (800k model turns, ~4 GB of traces streamed to disk).
  const reverse = await workload(
    "rss_growth_20k_to_100k",
    "reverse",
    o.quick ? 20_000 : 100_000,
    Math.min(o.reps, 3),
  );
  const tools = await workload("tool_rss_growth_20k_to_100k", "tools", o.quick ? 4_000 : 100_000, 1);
  for (const f of [reverse, tools])
    if ((f.errored as number) > 0) throw new Error(`${f.name}: ${f.errored} episodes errored`);
  return [reverse, tools];
}
