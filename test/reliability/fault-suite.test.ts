/**
 * The fault suite: an eval of 200 rollouts and a Miles train step through the rollout service,
 * both against the built-in engine's router injecting 10 % faults (5xx, 429, 408, connection
 * reset, stalls beyond the request timeout, aborts) while "abort all" fires as weight updates do.
 *
 * Contract: every task's group comes back (no lost group), every rollout finishes in bounded
 * time (no hung episode), every retriable fault costs exactly one counted retry, and every
 * aborted turn is either retried or recorded as a typed error — never a silently empty success.
 * Each test prints one JSON line of counts.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { TrainClient } from "../../packages/core/src/clients/train.ts";
import { loadEnvironment } from "../../packages/core/src/environment.ts";
import { loadConfig } from "../../packages/core/src/loaders/config.ts";
import { groupSamples } from "../../packages/core/src/miles/sample.ts";
import { createRenderer } from "../../packages/core/src/renderers/index.ts";
import { EnvironmentBackend } from "../../packages/core/src/service/environment-backend.ts";
import { startService } from "../../packages/core/src/service/server.ts";
import { trainClientFactory } from "../../packages/core/src/service/train-client-factory.ts";
import type { TraceRecord } from "../../packages/core/src/trace/record.ts";
import { SglangTransport } from "../../packages/core/src/transport/index.ts";
import { abortAllTicker, checkTrace, faultyEngine, REQUEST_TIMEOUT_MS, TYPED_FAILURES } from "./faults.ts";

// tool-math: multi-turn (tool calls through the default harness), so a rollout makes several
// requests and a fault can land mid-episode. Aborted and timed-out turns retry the rollout.
const CONFIG = (tasks: number, n: number) => `
model = "Qwen/Qwen3-0.6B"
num_rollouts = ${n}
num_tasks = ${tasks}
max_concurrent = 32
[taskset]
id = "tool-math"
[retries.rollout]
max_retries = 2
include = ["TurnAbortedError", "ProviderTimeoutError"]
`;

const STATUSES = new Set(["pending", "completed", "truncated", "aborted", "failed"]);

/** How often each key occurs (absent ones skipped): the typed failures of a run. */
function tally(keys: Iterable<string | undefined>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of keys) if (k) out[k] = (out[k] ?? 0) + 1;
  return out;
}

/** Both suites: the seeded faulty engine and `tasks` × 4 tool-math rollouts; `seconds()` since the start. */
async function faultyRun(seed: number, tasks: number) {
  const started = performance.now();
  const engine = await faultyEngine(seed);
  const env = await loadEnvironment(await loadConfig(CONFIG(tasks, 4)));
  return { engine, env, seconds: () => Math.round((performance.now() - started) / 100) / 10 };
}

// The bound: a hang anywhere fails the test at its timeout instead of stalling CI.
test(
  "eval: 200 rollouts under 10 % faults and abort-all lose nothing and hang on nothing",
  { timeout: 120_000 },
  async () => {
    const { engine, env, seconds } = await faultyRun(7, 50);
    const transport = new SglangTransport({
      baseUrl: engine.url,
      routingPolicy: "consistent_hashing",
      timeoutMs: REQUEST_TIMEOUT_MS,
      retry: { maxAttempts: 8, baseDelayMs: 5, maxDelayMs: 50 },
    });
    const client = new TrainClient({ renderer: createRenderer("qwen3"), transport });
    // Engine-wide, as before a weight update (a client's own abort() would stop only its rids).
    const ticker = abortAllTicker(engine, 700, () => transport.abortAll());
    const groups = new Map<number, TraceRecord[]>();
    try {
      const summary = await env.run(undefined, {
        client,
        onGroup: (i, records) => {
          assert.ok(!groups.has(i), `group ${i} delivered twice`);
          groups.set(i, records);
        },
      });
      await ticker.stop();
      const traces = [...groups.values()].flat();
      const outcomes = traces.map(checkTrace);
      const faults = engine.stats().faults;
      const lost = env.tasks.map((_, i) => i).filter((i) => groups.get(i)?.filter(Boolean).length !== 4);
      const counts = {
        suite: "eval",
        rollouts: traces.length,
        faults,
        abort_all: ticker.ticks,
        retries: transport.stats.retriesByReason,
        engine_aborted: engine.stats().aborted,
        typed_failures: tally(traces.flatMap((t) => t.errors.map((e) => e.type))),
        rollout_retries: traces.reduce((s, t) => s + t.attempts, 0),
        failed_rollouts: outcomes.filter((o) => o === "failed").length,
        lost: lost.length,
        hung: engine.stats().inFlight,
        seconds: seconds(),
      };
      console.log(JSON.stringify(counts));

      assert.equal(summary.num_traces, 200);
      assert.deepEqual(lost, []);
      assert.equal(engine.stats().inFlight, 0, "a request is still running on the engine");
      // Every kind actually fired, and abort-all landed on running requests.
      for (const k of ["5xx", "429", "408", "reset", "stall", "abort"] as const)
        assert.ok(faults[k] > 0, `no ${k} fault was injected`);
      assert.ok(engine.stats().aborted > faults.abort, "abort-all never hit a running request");
      // Each retriable fault the client saw is one counted transport retry. (On a loaded machine a
      // request can time out before its injected 5xx arrives, so "saw" may be fewer than injected.)
      const r = transport.stats.retriesByReason;
      const pairs: [string, number][] = [
        ["status_5xx", faults["5xx"]],
        ["status_429", faults["429"]],
        ["status_408", faults["408"]],
        ["connection", faults.reset],
      ];
      for (const [reason, injected] of pairs)
        assert.ok((r[reason] ?? 0) <= injected, `${reason}: more retries than faults`);
      // How many injected faults reached a client still waiting depends on the machine's load (a
      // 2 s timeout can fire first), so the floor is "retries happened", not a share of them.
      const retried = pairs.reduce((s, [reason]) => s + (r[reason] ?? 0), 0);
      assert.ok(retried > 0, "retriable faults were not retried");
      // A stall is a timeout (not retried by the transport: the rollout retry takes it).
      assert.ok((transport.stats.failuresByName.ProviderTimeoutError ?? 0) >= faults.stall);
      // Exact accounting: every aborted turn and every timeout the client saw is an error on a
      // trace — none was taken for a reply, none vanished.
      assert.equal(counts.typed_failures.TurnAbortedError ?? 0, transport.stats.finishReasons.abort);
      assert.equal(
        counts.typed_failures.ProviderTimeoutError ?? 0,
        transport.stats.failuresByName.ProviderTimeoutError ?? 0,
      );
      assert.equal(transport.stats.failed, transport.stats.failuresByName.ProviderTimeoutError ?? 0);
      assert.ok(counts.rollout_retries > 0);
    } finally {
      await ticker.stop();
      await client.close();
      await env.close();
      await engine.close();
    }
  },
);

test(
  "Miles train step through the rollout service under the same faults: every group returned",
  { timeout: 90_000 },
  async () => {
    const { engine, env, seconds } = await faultyRun(11, 24);
    const backend = new EnvironmentBackend(env);
    const service = await startService({
      env: backend,
      // `envroll serve --request-timeout 2`: a stalled turn fails fast and the rollout is retried.
      makeClient: trainClientFactory(backend.model, { timeoutMs: REQUEST_TIMEOUT_MS }),
    });
    // The ticker's own client stands in for Miles' abort before a weight update.
    const abortClient = new SglangTransport({ baseUrl: engine.url });
    const ticker = abortAllTicker(engine, 700, () => abortClient.abortAll());
    try {
      const res = await fetch(`${service.url}/rollout`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          rollout_id: 0,
          count: 16,
          n: 4,
          engine_url: engine.url,
          routing_policy: "consistent_hashing",
          concurrency: 32,
          sampling: { max_tokens: 256 },
        }),
      });
      assert.equal(res.status, 200);
      const lines = (await res.text())
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l));
      await ticker.stop();
      const groups = lines.filter((l) => l.type === "group");
      const summary = lines.at(-1);
      const samples = groups.flatMap((g) => groupSamples(g.group));
      const failedGroups = groups.filter((g) => g.drop_reason !== null);
      // A sample's error is "type: message".
      const errors = tally(samples.map((s) => s.metadata.envroll.error?.split(":", 1)[0]));
      console.log(
        JSON.stringify({
          suite: "miles_train_step",
          groups: groups.length,
          samples: samples.length,
          faults: engine.stats().faults,
          abort_all: ticker.ticks,
          engine_aborted: engine.stats().aborted,
          dropped_groups: summary.dropped,
          retried_into_success: samples.filter((s) => s.status !== "failed" && s.metadata.envroll.error)
            .length,
          typed_failures: errors,
          lost: 16 - groups.length,
          hung: engine.stats().inFlight,
          seconds: seconds(),
        }),
      );
      assert.equal(summary.type, "summary");
      assert.equal(summary.error, null);
      assert.equal(summary.delivered, 16);
      assert.equal(summary.aborted, 0);
      assert.equal(groups.length, 16, "a group was lost");
      // The cursor handed out 16 distinct tasks and completed exactly those.
      assert.deepEqual(
        groups.map((g) => g.task_index).sort((a, b) => a - b),
        [...Array(16).keys()],
      );
      assert.equal(summary.cursor.completed_total, 16);
      assert.equal(engine.stats().inFlight, 0);
      assert.ok(
        engine.stats().faults.stall + engine.stats().faults.reset > 0,
        "no connection-level fault fired",
      );
      for (const g of groups) {
        if (g.drop_reason === null) assert.equal(groupSamples(g.group).length, 4);
        else assert.equal(g.drop_reason, "trace_error", `group ${g.task_index}: ${g.error}`);
      }
      for (const s of samples) {
        assert.ok(STATUSES.has(s.status), s.status);
        const meta = s.metadata.envroll;
        // Every recorded error is typed; a failed sample says why, any other has trainable tokens.
        if (meta.error) assert.ok(TYPED_FAILURES.has(meta.error.split(":", 1)[0]!), meta.error);
        if (s.status === "failed") assert.ok(meta.error, "a failed sample without its error");
        else assert.ok(s.response_length > 0 && s.loss_mask.some((m) => m === 1));
      }
      // A group is dropped only for a rollout whose last attempt failed, never for a retried success.
      for (const g of failedGroups)
        assert.ok(
          groupSamples(g.group).some((s) => s.status === "failed"),
          `group ${g.task_index} dropped`,
        );
    } finally {
      await ticker.stop();
      await abortClient.close();
      await service.close();
      await backend.close();
      await engine.close();
    }
  },
);
