/**
 * Figure 1 — rollout throughput against the HTTP ceiling, with the engine in its own process at
 * zero latency and one concurrency for every phase:
 *  (a) http_ceiling_rps: raw `/generate` requests/s from an undici Pool (same bodies as (b));
 *  (b) rollouts_rps: single-turn reverse-text rollouts/s through Environment.runEval with a
 *      TrainClient (episode, rollout, trace, scoring);
 *  (c) tool_turns_per_s: model turns/s of 8-turn tool episodes (bench tool loop, bridged);
 * plus rollouts_vs_http_ceiling = (b)/(a) and cpu_ms_per_turn = this process's CPU / turns.
 * Each repetition runs (a), (b), (c) back to back, so every ratio compares neighbours in time.
 */
import { Pool } from "undici";
import { spawnTs, stop, waitForLine } from "./lib/child.ts";
import { type BenchOptions, type Figure, median, note } from "./lib/report.ts";
import { TOOL_STEPS, toolLoopTaskset } from "./lib/tool-loop.ts";
import { environment, generateBodies, type RunStats, timedEval, trainClient } from "./lib/workloads.ts";

export const CONCURRENCY = 64;

async function ceiling(url: string, bodies: string[], count: number): Promise<RunStats> {
  const pool = new Pool(url, { connections: CONCURRENCY, pipelining: 1, keepAliveTimeout: 30_000 });
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const body = bodies[next++ % bodies.length]!;
      const res = await pool.request({
        path: "/generate",
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      });
      // Read the whole reply, as a client must, but do not parse it: this is the ceiling.
      await res.body.text();
      if (res.statusCode !== 200) throw new Error(`/generate answered ${res.statusCode}`);
    }
  };
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  await pool.close();
  return { wallMs, cpuMs: (cpu.user + cpu.system) / 1000, rollouts: count, turns: count, errored: 0 };
}

export async function throughput(o: BenchOptions): Promise<Figure[]> {
  const engine = spawnTs("bench/engine-child.ts");
  try {
    const url = (await waitForLine(engine, /listening on (\S+)/))[1]!;
    const rt = await environment("reverse-text", CONCURRENCY);
    const tools = await environment(toolLoopTaskset.id, CONCURRENCY, toolLoopTaskset);
    const bodies = generateBodies(rt, url);
    const nRequests = o.quick ? 2_000 : 6_000;
    const nTool = o.quick ? 150 : 500;
    // Warm-up: JIT, connection pools, tokenizer caches, the engine's own caches.
    const warmClient = trainClient(url);
    await ceiling(url, bodies, 500);
    await timedEval(rt, warmClient, 500);
    await timedEval(tools, warmClient, 50);

    const a: RunStats[] = [];
    const b: RunStats[] = [];
    const c: RunStats[] = [];
    for (let rep = 0; rep < o.reps; rep++) {
      a.push(await ceiling(url, bodies, nRequests));
      b.push(await timedEval(rt, trainClient(url), nRequests));
      const toolClient = trainClient(url);
      c.push(await timedEval(tools, toolClient, nTool));
      const last = c.at(-1)!;
      if (last.turns !== nTool * (TOOL_STEPS + 1) || last.errored > 0)
        throw new Error(
          `tool loop: ${last.turns} turns, ${last.errored} errored (expected ${nTool * (TOOL_STEPS + 1)})`,
        );
      if (toolClient.counts.bridged !== nTool * TOOL_STEPS)
        throw new Error(
          `tool loop: ${toolClient.counts.bridged} bridged turns, expected ${nTool * TOOL_STEPS}`,
        );
      note(
        `throughput rep ${rep + 1}: ceiling ${rps(a.at(-1)!)} req/s, rollouts ${rps(b.at(-1)!)}/s, tool turns ${(last.turns / (last.wallMs / 1000)).toFixed(0)}/s`,
      );
    }
    await rt.close();
    await tools.close();
    await warmClient.close();

    const ceilingRps = a.map(rps);
    const rolloutRps = b.map(rps);
    const ratios = b.map((x, i) => rps(x) / ceilingRps[i]!);
    const turnRate = c.map((x) => x.turns / (x.wallMs / 1000));
    const cpuPerTurn = c.map((x) => x.cpuMs / x.turns);
    const ratio = median(ratios);
    const erroredB = b.reduce((s, x) => s + x.errored, 0);
    return [
      {
        name: "http_ceiling_rps",
        value: median(ceilingRps),
        unit: "req/s",
        reps: ceilingRps,
        concurrency: CONCURRENCY,
        requests: nRequests,
        cpu_ms_per_request: median(a.map((x) => x.cpuMs / x.rollouts)),
      },
      {
        name: "rollouts_rps",
        value: median(rolloutRps),
        unit: "rollouts/s",
        reps: rolloutRps,
        concurrency: CONCURRENCY,
        rollouts: nRequests,
        errored: erroredB,
        cpu_ms_per_rollout: median(b.map((x) => x.cpuMs / x.rollouts)),
      },
      {
        name: "rollouts_vs_http_ceiling",
        value: ratio,
        unit: "ratio",
        target: ">= 0.5",
        met: ratio >= 0.5,
        reps: ratios,
      },
      {
        name: "tool_turns_per_s",
        value: median(turnRate),
        unit: "turns/s",
        reps: turnRate,
        episodes: nTool,
        turns_per_episode: TOOL_STEPS + 1,
        concurrency: CONCURRENCY,
      },
      {
        name: "cpu_ms_per_turn",
        value: median(cpuPerTurn),
        unit: "ms",
        reps: cpuPerTurn,
        workload: "8-turn tool episodes, envroll process only (engine excluded)",
      },
    ];
  } finally {
    await stop(engine);
  }
}

function rps(x: RunStats): number {
  return x.rollouts / (x.wallMs / 1000);
}
