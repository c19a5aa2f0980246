/**
 * `npm run bench` — the whole benchmark suite, one JSON object per figure on stdout, and the
 * results table in bench/RESULTS.md (full run) or a temp file (--quick or --only, so a smoke or
 * partial run never overwrites the recorded numbers).
 *
 *   npm run bench                 full run, 3 repetitions per figure (~10 minutes on 2 cores)
 *   npm run bench -- --quick      ~1–2 minute version (smaller counts, 1 repetition)
 *   npm run bench -- --only NAME  one benchmark: throughput, renderer, bridge, memory, eval, dialects, startup, generic, agent, stream
 *   npm run bench -- --reps N     repetitions per figure (the figure is their median)
 */
import os from "node:os";
import { agentShape } from "./agent-shape.ts";
import { bridge } from "./bridge.ts";
import { dialects } from "./dialects.ts";
import { evalWall } from "./eval-wall.ts";
import { firstDelta } from "./first-delta.ts";
import { genericRenderer } from "./generic.ts";
import { type BenchOptions, type Figure, note, printFigure } from "./lib/report.ts";
import { memory } from "./memory.ts";
import { renderer } from "./renderer.ts";
import { cpuPressure, writeResults } from "./results.ts";
import { startup } from "./startup.ts";
import { throughput } from "./throughput.ts";

const BENCHES: Record<string, (o: BenchOptions) => Promise<Figure[]>> = {
  throughput,
  renderer,
  bridge,
  memory,
  eval: evalWall,
  dialects,
  startup,
  generic: genericRenderer,
  agent: agentShape,
  stream: firstDelta,
};

function parseArgs(argv: string[]): { options: BenchOptions; only: string[]; out: string | null } {
  const quick = argv.includes("--quick");
  let reps = quick ? 1 : 3;
  const only: string[] = [];
  let out: string | null = null;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--reps") reps = Number(argv[++i]);
    else if (a === "--only") only.push(...(argv[++i] ?? "").split(","));
    else if (a === "--out") out = argv[++i] ?? null;
    else if (a !== "--quick") throw new Error(`unknown argument ${a} (see bench/README.md)`);
  }
  if (!Number.isInteger(reps) || reps < 1) throw new Error("--reps must be a positive integer");
  for (const name of only) if (!BENCHES[name]) throw new Error(`unknown benchmark ${name}`);
  return { options: { quick, reps }, only, out };
}

const argv = process.argv.slice(2);
const { options, only, out } = parseArgs(argv);
const started = Date.now();
const loadBefore = os.loadavg();
const pressureBefore = cpuPressure();
const figures: Figure[] = [];
const series: Record<string, unknown> = {};
for (const [name, run] of Object.entries(BENCHES)) {
  if (only.length > 0 && !only.includes(name)) continue;
  note(`${name}…`);
  const t0 = Date.now();
  for (const f of await run(options)) {
    // Long per-turn/per-sample series go to RESULTS.md, not to the one-line JSON.
    const { series: s, ...rest } = f as Figure & { series?: unknown };
    if (s !== undefined) series[f.name] = s;
    printFigure(rest);
    figures.push(rest);
  }
  note(`${name} done in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}
const path = await writeResults({
  figures,
  series,
  options,
  argv,
  out,
  wallS: (Date.now() - started) / 1000,
  loadBefore,
  pressureBefore,
  partial: only.length > 0,
});
note(`wrote ${path} (${((Date.now() - started) / 1000).toFixed(0)} s total)`);
