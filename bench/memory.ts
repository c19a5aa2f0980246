/**
 * Figure 4 — rss_growth_10k_to_100k: retained memory while streaming 100,000 short episodes to
 * traces.jsonl (quick: 20,000, sampled every 2,000). The work runs in a child under
 * `--expose-gc` (see memory-child.ts) so each sample follows a forced full GC; the figure is
 * (RSS at the last sample − RSS at the first) / RSS at the first. The first sample is taken
 * after 10% of the run, so start-up allocation and JIT warm-up are excluded from the growth.
 */
import { runTs } from "./lib/child.ts";
import { type BenchOptions, type Figure, median } from "./lib/report.ts";

interface ChildResult {
  samples: { episodes: number; rss: number; heapUsed: number; heapTotal: number; external: number }[];
  errored: number;
  traces_bytes: number;
  wall_s: number;
}

export async function memory(o: BenchOptions): Promise<Figure[]> {
  const episodes = o.quick ? 20_000 : 100_000;
  const every = episodes / 10;
  const runs: ChildResult[] = [];
  // One child per repetition; the full run's 100k episodes take minutes, so at most 3.
  for (let rep = 0; rep < Math.min(o.reps, 3); rep++) {
    const out = await runTs("bench/memory-child.ts", [String(episodes), String(every)], ["--expose-gc"]);
    runs.push(JSON.parse(out.trim().split("\n").at(-1)!) as ChildResult);
  }
  type Key = "rss" | "heapUsed" | "heapTotal";
  const growth = (r: ChildResult, key: Key, from = 0) => {
    const first = r.samples[from]![key];
    return (r.samples.at(-1)![key] - first) / first;
  };
  const rss = runs.map((r) => growth(r, "rss"));
  const value = median(rss);
  const mb = (b: number) => Math.round(b / 1e5) / 10;
  const first = runs[0]!;
  return [
    {
      name: "rss_growth_10k_to_100k",
      value,
      unit: "fraction",
      target: "<= 0.10",
      met: value <= 0.1,
      reps: rss,
      episodes,
      sample_every: every,
      heap_used_growth: median(runs.map((r) => growth(r, "heapUsed"))),
      heap_total_growth: median(runs.map((r) => growth(r, "heapTotal"))),
      // From the second sample (20%) on: separates a one-time step early in the run from a
      // steady per-episode growth, which is what a leak looks like.
      rss_growth_from_second_sample: median(runs.map((r) => growth(r, "rss", 1))),
      rss_first_mb: mb(first.samples[0]!.rss),
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
    },
  ];
}
