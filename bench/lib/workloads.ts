/**
 * The workloads shared by several figures: reverse-text environments and rollouts through a
 * real TrainClient (renderer + SglangTransport), and the raw `/generate` bodies for the HTTP
 * ceiling — built by the same transport from the same rendered prompts, so (a) and (b) send the
 * same requests and differ only in what envroll does around them.
 */
import { TrainClient } from "../../packages/core/src/clients/train.ts";
import { type Environment, loadEnvironment } from "../../packages/core/src/environment.ts";
import { loadConfig } from "../../packages/core/src/loaders/config.ts";
import { createRenderer } from "../../packages/core/src/renderers/index.ts";
import type { Taskset } from "../../packages/core/src/task.ts";
import type { TraceRecord } from "../../packages/core/src/trace/record.ts";
import { SglangTransport } from "../../packages/core/src/transport/index.ts";

export function trainClient(url: string, bridge = true): TrainClient {
  return new TrainClient({
    renderer: createRenderer("qwen3"),
    transport: new SglangTransport({ baseUrl: url }),
    bridge,
  });
}

export async function environment(
  tasksetId: string,
  concurrency: number,
  taskset?: Taskset<any, any>,
  extra: Record<string, unknown> = {},
): Promise<Environment> {
  const config = await loadConfig(
    { taskset: { id: tasksetId }, model: "envroll-engine/reference", max_concurrent: concurrency, ...extra },
    undefined,
    taskset ? { taskset } : {},
  );
  return loadEnvironment(config, taskset ? { taskset } : {});
}

/** `count` task indices cycling over the environment's tasks (so any count fits any dataset). */
export function cycle(env: Environment, count: number): number[] {
  return Array.from({ length: count }, (_, i) => i % env.tasks.length);
}

export interface RunStats {
  wallMs: number;
  cpuMs: number;
  rollouts: number;
  turns: number;
  errored: number;
}

/** Runs `count` rollouts through `env.run` and measures wall and this process's CPU time. */
export async function timedEval(env: Environment, client: TrainClient, count: number): Promise<RunStats> {
  let turns = 0;
  let errored = 0;
  const taskIndices = cycle(env, count);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await env.run(
    taskIndices.map((taskIndex) => ({ taskIndex })),
    {
      client,
      onTrace: (r: TraceRecord) => {
        turns += r.num_turns;
        if (r.errors.length > 0) errored++;
      },
    },
  );
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return { wallMs, cpuMs: (cpu.user + cpu.system) / 1000, rollouts: count, turns, errored };
}

/** The exact `/generate` JSON a TrainClient would send for each reverse-text task's first turn. */
export function generateBodies(env: Environment, url: string): string[] {
  const renderer = createRenderer("qwen3");
  const transport = new SglangTransport({ baseUrl: url });
  const bodies = env.tasks.map((task, i) => {
    const t = task as { prompt: string; system_prompt: string };
    const ids = renderer.render(
      [
        { role: "system", content: t.system_prompt },
        { role: "user", content: t.prompt },
      ],
      { addGenerationPrompt: true },
    ).tokenIds;
    const built = transport.buildRequest({
      inputIds: ids,
      // The rollouts' own sampling (reverse-text's max_tokens among it): with none, the engine
      // would stop every ceiling reply at SGLang's default of 128 new tokens, a lighter request
      // than the rollouts send.
      sampling: env.config.sampling,
      sessionId: `ceiling-${i}`,
      turn: 0,
      stopTokenIds: renderer.stopTokenIds,
    });
    return JSON.stringify(built.body);
  });
  void transport.close();
  return bodies;
}
