/**
 * One real agent's episode through the training service, as Miles drives it: `envroll serve`'s
 * HTTP service (startService, the CLI's TrainClient factory) over the kv taskset, one
 * `POST /rollout` against the built-in engine with the replay policy, and the Miles samples it
 * streams back. Every sampled turn the TrainClient returned is recorded, to be compared with the
 * samples' loss-masked tokens.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadEnvironment } from "../../packages/core/src/environment.ts";
import { loadConfig } from "../../packages/core/src/loaders/config.ts";
import { groupSamples, type MilesSample } from "../../packages/core/src/miles/sample.ts";
import type { RequestClient } from "../../packages/core/src/service/backend.ts";
import { EnvironmentBackend } from "../../packages/core/src/service/environment-backend.ts";
import { startService } from "../../packages/core/src/service/server.ts";
import { trainClientFactory } from "../../packages/core/src/service/train-client-factory.ts";
import { startEngine } from "../../packages/engine/src/index.ts";
import { post } from "../service/http.ts";
import { type AgentId, kvTaskset, Recorder, replayRows } from "./agent-episode.ts";

export interface ServedRun {
  /** The NDJSON lines of the /rollout stream: groups, then the summary. */
  lines: Record<string, any>[];
  samples: MilesSample[];
  generates: number[][];
  turns: Recorder["turns"];
}

export async function runAgentServed(harness: string, agent: AgentId): Promise<ServedRun> {
  const dir = mkdtempSync(join(tmpdir(), "envroll-agent-served-"));
  const replay = join(dir, "replay.jsonl");
  writeFileSync(replay, replayRows(agent));
  const generates: number[][] = [];
  const engine = await startEngine({
    policy: `replay:${replay}`,
    contextLength: 131072,
    onRequest: (body) => {
      const ids = (body as { input_ids?: number[] }).input_ids;
      if (ids) generates.push(ids);
    },
  });
  const model = "Qwen/Qwen3-0.6B";
  const toml = `taskset = { id = "${kvTaskset.id}" }\nmodel = "${model}"\nmax_turns = 8\n[harness]\nid = "${harness}"\n[sampling]\nmax_tokens = 400\n`;
  const env = await loadEnvironment(await loadConfig(toml, {}, { taskset: kvTaskset }), {
    taskset: kvTaskset,
  });
  const factory = trainClientFactory(model);
  const recorders: Recorder[] = [];
  const service = await startService({
    env: new EnvironmentBackend(env),
    makeClient: async (spec) => {
      const inner = await factory(spec);
      const recorder = new Recorder(inner);
      recorders.push(recorder);
      // The service pads a trace that sampled nothing with the client's end-of-turn token.
      return Object.assign(recorder, { padTokenId: inner.padTokenId }) as RequestClient;
    },
  });
  try {
    const r = await post(`${service.url}/rollout`, { engine_url: engine.url, n: 1, rollout_id: 0, count: 1 });
    if (r.status !== 200) throw new Error(`/rollout answered ${r.status}: ${JSON.stringify(r.body)}`);
    const lines = (Array.isArray(r.body) ? r.body : [r.body]) as Record<string, any>[];
    const samples = lines.filter((l) => l["type"] === "group").flatMap((l) => groupSamples(l["group"]));
    return { lines, samples, generates, turns: recorders.flatMap((c) => c.turns) };
  } finally {
    await service.close();
    await env.close();
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
