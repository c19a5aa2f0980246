/**
 * Child of figure 4 (run with --expose-gc): streams N episodes through Environment.run and a real
 * TrainClient (render, bridge, parse, trace, scoring) to a traces.jsonl written by the eval CLI's
 * TracesWriter, and samples RSS after a forced full GC every `every` episodes. Prints one JSON
 * line: {"samples": [{episodes, rss, heapUsed, ...}, ...], ...}.
 *
 * Workloads: `reverse` — single-turn reverse-text; `tools` — the bench tool loop (8 model turns,
 * 7 tool calls, every later turn bridged), which keeps interception sessions, tool results and
 * multi-turn trace graphs alive for the length of an episode.
 *
 * The engine is replaced by an in-process transport that answers at once: it keeps the engine's
 * own memory out of this process and lets 100,000 episodes run in minutes. Everything envroll
 * does per episode still runs.
 *
 * Usage: node --expose-gc --import tsx bench/memory-child.ts reverse|tools EPISODES EVERY
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TrainClient } from "../packages/core/src/clients/train.ts";
import { TracesWriter } from "../packages/core/src/outputs/traces-file.ts";
import { createRenderer } from "../packages/core/src/renderers/index.ts";
import type { SglangTransport } from "../packages/core/src/transport/index.ts";
import type { GenerateRequest, GenerateResult } from "../packages/core/src/transport/types.ts";
import { cannedReplies } from "./lib/canned-replies.ts";
import { toolLoopTaskset } from "./lib/tool-loop.ts";
import { environment } from "./lib/workloads.ts";
import { CONCURRENCY } from "./throughput.ts";

const [workload, episodesArg, everyArg] = process.argv.slice(2);
const episodes = Number(episodesArg);
const every = Number(everyArg);
if (workload !== "reverse" && workload !== "tools") throw new Error(`workload: ${workload} (reverse|tools)`);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with node --expose-gc");

const renderer = createRenderer("qwen3");
const tokenizer = (await import("../packages/core/src/tokenizer/index.ts")).loadTokenizer();
const reply = cannedReplies(workload, tokenizer, renderer.stopTokenIds[0]!);

/** The part of SglangTransport a TrainClient uses, answering at once with a canned reply. */
class CannedTransport {
  private n = 0;
  async generate(req: GenerateRequest): Promise<GenerateResult> {
    const outputIds = reply(req.inputIds, this.n++);
    return {
      outputIds,
      logprobs: outputIds.map(() => -0.5),
      finishReason: "stop",
      matchedStop: renderer.stopTokenIds[0]!,
      abortMessage: null,
      promptTokens: req.inputIds.length,
      completionTokens: outputIds.length,
      cachedTokens: 0,
      weightVersion: "default",
      weightVersions: null,
      e2eLatency: 0,
      clientLatency: 0,
      rid: `${req.sessionId}:${req.turn ?? 0}`,
      text: null,
      maxNewTokens: null,
      cappedBy: null,
      attempts: 1,
    };
  }
  async abort(): Promise<void> {}
  async abortAll(): Promise<void> {}
  async close(): Promise<void> {}
  /** A finished rollout's turn count is forgotten here (TrainClient.endSession); none is kept. */
  readonly sessions = { forget(_sessionId: string): void {} };
}

const dir = mkdtempSync(join(tmpdir(), "envroll-bench-mem-"));
const writer = new TracesWriter(join(dir, "traces.jsonl"));
const env =
  workload === "tools"
    ? await environment(toolLoopTaskset.id, CONCURRENCY, toolLoopTaskset)
    : await environment("reverse-text", CONCURRENCY);
const client = new TrainClient({ renderer, transport: new CannedTransport() as unknown as SglangTransport });
const samples: { episodes: number; rss: number; heapUsed: number; heapTotal: number; external: number }[] =
  [];
let done = 0;
let errored = 0;
let turns = 0;
const t0 = performance.now();
try {
  await env.run(
    Array.from({ length: episodes }, (_, i) => ({ taskIndex: i % env.tasks.length })),
    {
      client,
      onTrace: (r) => {
        writer.append(r);
        turns += r.num_turns;
        if (r.errors.length > 0) errored++;
        if (++done % every === 0) {
          // Retained memory only: a full collection first (the rollouts in flight stay live).
          gc();
          const m = process.memoryUsage();
          samples.push({
            episodes: done,
            rss: m.rss,
            heapUsed: m.heapUsed,
            heapTotal: m.heapTotal,
            external: m.external,
          });
        }
      },
    },
  );
} finally {
  writer.close();
}
const bytes = statSync(join(dir, "traces.jsonl")).size;
rmSync(dir, { recursive: true, force: true });
await env.close();
process.stdout.write(
  `${JSON.stringify({ samples, errored, turns, bridged: client.counts.bridged, traces_bytes: bytes, wall_s: (performance.now() - t0) / 1000 })}\n`,
);
