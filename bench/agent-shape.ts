/**
 * Agent-shape episodes: envroll's own CPU time per model turn over 100-turn coding-agent
 * episodes, from a ~20k-token first request to ~50k tokens of context, with the same amount of
 * new input every turn (one tool result). Any per-turn cost that grows with the history shows
 * as `turn100 / turn2` > 1.
 *
 * Three processes: the built-in engine (engine-child.ts, 64k context), the agents
 * (agent-shape-driver.ts: N episodes through one dialect with the official SDKs), and this one,
 * which holds what envroll runs in production for such an agent — the interception server, one
 * RolloutSession per episode, the trace, and the TrainClient (qwen3 renderer, bridge, SGLang
 * transport). The driver runs its episodes in lockstep and this process reads its own CPU time
 * around each turn index, so neither the engine's nor the agent's work is counted.
 *
 * Figures per mode (dialect ± stream): CPU ms per turn at turn 2 and 100 (median over the
 * window of 10 turns starting at turn 2 or ending at turn 100, per episode), their ratio (target ≤ 1.2), and the heap each
 * in-flight episode holds at turn 50 and 100 (forced GC; sessions disposed for the baseline),
 * so growth per turn can be compared with the new tokens per turn. The yardstick: a full
 * re-render of episode 0's history at turn 100 / turn 2, what a client without a bridge pays.
 */
import type { ChildProcess } from "node:child_process";
import { fork } from "node:child_process";
import { PerformanceObserver } from "node:perf_hooks";
import v8 from "node:v8";
import vm from "node:vm";
import { TrainClient } from "../packages/core/src/clients/train.ts";
import { InterceptionServer } from "../packages/core/src/interception/server.ts";
import { createRenderer } from "../packages/core/src/renderers/index.ts";
import type { RenderMessage } from "../packages/core/src/renderers/renderer.ts";
import { SglangTransport } from "../packages/core/src/transport/sglang-transport.ts";
import { bareSession } from "../test/runtime/helpers/session.ts";
import type { DriverInit } from "./agent-shape-driver.ts";
import { shapeTools, systemPrompt } from "./lib/agent-shape.ts";
import { ROOT, spawnTs, stop, TS_LOADER, waitForLine } from "./lib/child.ts";
import { type BenchOptions, type Figure, median, note } from "./lib/report.ts";

const CONTEXT = 65_536;
const WINDOW = 10;
const SYSTEM_WORDS = 2700; // ~11k tokens
const TOOLS = shapeTools(24, 45); // ~10k tokens with the system prompt's scaffold
const TOOL_WORDS = 50; // ~260 tokens of tool output per turn, ~300 with the reply

v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc") as () => void;

function heapAfterGc(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

type Mode = { dialect: DriverInit["dialect"]; stream: boolean };
const modeName = (m: Mode) => `${m.dialect}${m.stream ? "_stream" : ""}`;

interface ModeResult {
  cpuMs: number[]; // per turn index (0 = turn 1), per episode
  gcMs: number[]; // of that, in garbage collection (minor and major), per episode
  heapAt: Record<number, number>; // bytes per episode at a turn
  promptTokens: number[];
  history: unknown[];
}

/** Sends one message to the driver and resolves with its next reply. */
function ask(child: ChildProcess, msg: unknown): Promise<any> {
  return new Promise((resolve, reject) => {
    const onExit = () => reject(new Error("agent driver exited"));
    child.once("exit", onExit);
    child.once("message", (reply: any) => {
      child.off("exit", onExit);
      if (reply?.type === "error") reject(new Error(`agent driver: ${reply.message}`));
      else resolve(reply);
    });
    child.send(msg as never);
  });
}

async function runMode(
  mode: Mode,
  client: TrainClient,
  server: InterceptionServer,
  episodes: number,
  turns: number,
): Promise<ModeResult> {
  const base = heapAfterGc();
  const sessions = Array.from({ length: episodes }, () => bareSession(client));
  const regs = await Promise.all(sessions.map((s) => server.register(s.session)));
  const child = fork(`${ROOT}bench/agent-shape-driver.ts`, [], {
    execArgv: ["--import", TS_LOADER],
    cwd: ROOT,
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const out: ModeResult = { cpuMs: [], gcMs: [], heapAt: {}, promptTokens: [], history: [] };
  // GC pauses per turn: garbage grows with what each turn allocates, and the heap to mark with the history.
  let gc = 0;
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) gc += e.duration;
  });
  observer.observe({ entryTypes: ["gc"] });
  try {
    const init: DriverInit = {
      type: "init",
      ...mode,
      sessions: regs.map((r) => ({ baseUrl: r.baseUrl, secret: r.secret })),
      system: systemPrompt(SYSTEM_WORDS),
      tools: TOOLS,
      toolWords: TOOL_WORDS,
    };
    await ask(child, init);
    for (let turn = 1; turn <= turns; turn++) {
      const c0 = process.cpuUsage();
      // ENVROLL_BENCH_AGENT_MARKS=1: each turn's start on the clock of `--cpu-prof`, so a profile
      // can be cut into turns (early vs late: what grows with the history).
      if (process.env.ENVROLL_BENCH_AGENT_MARKS && episodes > 2)
        process.stderr.write(`MARK ${turn} ${process.hrtime.bigint() / 1000n}\n`);
      const done = await ask(child, { type: "go", turn });
      const c = process.cpuUsage(c0);
      out.cpuMs.push((c.user + c.system) / 1000 / episodes);
      // Entries arrive on a later tick; a turn's are read at the next turn's end (close enough for a window median).
      out.gcMs.push(gc / episodes);
      gc = 0;
      out.promptTokens.push(done.promptTokens);
      if (turn === turns || turn === turns / 2) out.heapAt[turn] = (heapAfterGc() - base) / episodes;
    }
    out.history = (await ask(child, { type: "end" })).messages;
  } finally {
    observer.disconnect();
    child.kill();
    for (const [i, r] of regs.entries()) {
      r.dispose();
      client.endSession?.(sessions[i]!.trace.id);
    }
  }
  return out;
}

/** Chat-format history → render messages (tool-call arguments stay the JSON text sent). */
function renderMessages(history: unknown[]): RenderMessage[] {
  return history as RenderMessage[];
}

/** Full re-render of episode 0's history at turn `k` (k assistant turns before the prompt). */
function rerenderMs(messages: RenderMessage[], k: number): number {
  const r = createRenderer("qwen3");
  const tools = TOOLS.map((t) => ({ type: "function" as const, function: t }));
  const upTo = 2 + 2 * (k - 1); // system, user, then (assistant, tool) per earlier turn
  const slice = messages.slice(0, upTo);
  r.render(slice, { tools, addGenerationPrompt: true }); // warm
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    r.render(slice, { tools, addGenerationPrompt: true });
    times.push(performance.now() - t0);
  }
  return median(times);
}

const windowEnding = (xs: number[], turn: number) => median(xs.slice(turn - WINDOW, turn));
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

export async function agentShape(o: BenchOptions): Promise<Figure[]> {
  const turns = o.quick ? 40 : 100;
  const episodes = o.quick ? 4 : 16;
  const all: Mode[] = [
    { dialect: "chat", stream: false },
    { dialect: "responses", stream: false },
    { dialect: "anthropic", stream: false },
    { dialect: "chat", stream: true },
    ...(o.quick
      ? []
      : [
          { dialect: "responses" as const, stream: true },
          { dialect: "anthropic" as const, stream: true },
        ]),
  ];
  // ENVROLL_BENCH_AGENT_MODES=chat,anthropic_stream runs only those modes (profiling one path).
  const only = process.env.ENVROLL_BENCH_AGENT_MODES?.split(",");
  const modes = only ? all.filter((m) => only.includes(modeName(m))) : all;
  if (modes.length === 0 || !modes.some((m) => m.dialect === "chat" && !m.stream))
    throw new Error("ENVROLL_BENCH_AGENT_MODES must include chat (the yardstick and token counts use it)");
  const engine = spawnTs("bench/engine-child.ts", ["--context", String(CONTEXT)]);
  const figures: Figure[] = [];
  try {
    const url = (await waitForLine(engine, /listening on (\S+)/))[1]!;
    const transport = new SglangTransport({ baseUrl: url, contextLength: CONTEXT });
    const client = new TrainClient({ renderer: createRenderer("qwen3"), transport });
    const server = new InterceptionServer();
    const results: Record<string, ModeResult[]> = Object.fromEntries(modes.map((m) => [modeName(m), []]));
    try {
      // One short warm-up episode set per mode (JIT, caches), then the repetitions alternate.
      for (const m of modes) await runMode(m, client, server, 2, 6);
      for (let rep = 0; rep < o.reps; rep++) {
        for (const m of rep % 2 ? [...modes].reverse() : modes) {
          const seen = { ...server.resent };
          const r = await runMode(m, client, server, episodes, turns);
          results[modeName(m)]!.push(r);
          const bodies = server.resent.bodies - seen.bodies;
          const reused = server.resent.reusedElements - seen.reusedElements;
          note(
            `agent ${modeName(m)} rep ${rep + 1}: ${bodies} bodies reused ${(reused / Math.max(1, bodies)).toFixed(0)} history elements each; ` +
              `turn 2 ${windowEnding(r.cpuMs, 2 + WINDOW - 1).toFixed(2)} ms, ` +
              `turn ${turns} ${windowEnding(r.cpuMs, turns).toFixed(2)} ms ` +
              `(GC mean ${mean(r.gcMs.slice(1, 1 + WINDOW)).toFixed(2)} -> ${mean(r.gcMs.slice(turns - WINDOW, turns)).toFixed(2)} ms)`,
          );
        }
      }
    } finally {
      await server.close();
      await client.close();
    }
    const last = turns;
    for (const m of modes) {
      const rs = results[modeName(m)]!;
      const early = rs.map((r) => windowEnding(r.cpuMs, 2 + WINDOW - 1));
      const late = rs.map((r) => windowEnding(r.cpuMs, last));
      const name = `agent_${modeName(m)}`;
      figures.push(
        {
          name: `${name}_cpu_turn${last}_over_turn2`,
          value: median(late.map((x, i) => x / early[i]!)),
          unit: "ratio",
          target: "<= 1.2",
          met: median(late.map((x, i) => x / early[i]!)) <= 1.2,
          reps: late.map((x, i) => x / early[i]!),
          episodes,
        },
        {
          name: `${name}_cpu_ms_turn2`,
          value: median(early),
          unit: "ms/turn",
          reps: early,
          gc_ms: median(rs.map((r) => mean(r.gcMs.slice(1, 1 + WINDOW)))),
        },
        {
          name: `${name}_cpu_ms_turn${last}`,
          value: median(late),
          unit: "ms/turn",
          reps: late,
          gc_ms: median(rs.map((r) => mean(r.gcMs.slice(last - WINDOW, last)))),
        },
        {
          name: `${name}_episode_kb_turn${last}`,
          value: median(rs.map((r) => r.heapAt[last]! / 1024)),
          unit: "KB/episode",
          at_half_kb: median(rs.map((r) => r.heapAt[last / 2]! / 1024)),
          growth_kb_per_turn: median(
            rs.map((r) => (r.heapAt[last]! - r.heapAt[last / 2]!) / 1024 / (last / 2)),
          ),
        },
      );
    }
    // Per-turn CPU ms (median over repetitions), every 5th turn, one column per mode.
    const series = Array.from({ length: Math.floor(last / 5) + 1 }, (_, i) => Math.max(1, i * 5)).map(
      (turn) => ({
        turn,
        ...Object.fromEntries(
          modes.map((m) => [
            `${modeName(m)}_ms`,
            median(results[modeName(m)]!.map((r) => r.cpuMs[turn - 1]!)),
          ]),
        ),
      }),
    );
    (figures[0] as Figure & { series?: unknown }).series = series;
    const chat = results.chat![0]!;
    const history = renderMessages(chat.history);
    const t2 = rerenderMs(history, 2);
    const tn = rerenderMs(history, last);
    figures.push({
      name: "agent_prompt_tokens",
      value: chat.promptTokens.at(-1)!,
      unit: `tokens at turn ${last}`,
      turn1: chat.promptTokens[0],
      turn2: chat.promptTokens[1],
      per_turn: (chat.promptTokens.at(-1)! - chat.promptTokens[1]!) / (last - 2),
    });
    figures.push({
      name: `agent_rerender_turn${last}_over_turn2`,
      value: tn / t2,
      unit: "ratio",
      rerender_ms_turn2: t2,
      [`rerender_ms_turn${last}`]: tn,
    });
    figures.push({
      name: "agent_client_counts",
      value: client.counts.bridged,
      unit: "bridged turns",
      ...client.counts,
    });
  } finally {
    await stop(engine);
  }
  return figures;
}
