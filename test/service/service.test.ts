import assert from "node:assert/strict";
import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { groupSamples } from "../../packages/core/src/miles/sample.ts";
import { type RunningService, startService } from "../../packages/core/src/service/server.ts";
import { twoBranches } from "../miles/traces.ts";
import { FakeClient, FakeEnv, type FakeEnvOptions } from "./fake-env.ts";
import { post, streamThenDisconnect, until } from "./http.ts";

const running: RunningService[] = [];
after(async () => {
  for (const s of running) await s.close();
});

async function serve(
  envOpts: FakeEnvOptions = {},
  extra: { token?: string; stateDir?: string; bodyLimit?: number } = {},
) {
  const env = new FakeEnv(envOpts);
  const clients: FakeClient[] = [];
  const svc = await startService({
    env,
    makeClient: () => {
      const c = new FakeClient();
      clients.push(c);
      return c;
    },
    ...extra,
  });
  running.push(svc);
  return { env, clients, svc };
}

const base = { engine_url: "http://127.0.0.1:9", n: 2 };

describe("rollout service over HTTP", () => {
  it("streams one NDJSON line per group, then a summary", async () => {
    const { svc, clients } = await serve();
    const r = await post(`${svc.url}/rollout`, { ...base, rollout_id: 0, count: 3 });
    assert.equal(r.status, 200);
    const lines = r.body as any[];
    assert.equal(lines.length, 4);
    const groups = lines.slice(0, 3);
    assert.ok(groups.every((l) => l.type === "group" && l.group.length === 2 && l.drop_reason === null));
    assert.deepEqual(groups.map((g) => g.task_index).sort(), [0, 1, 2]);
    const samples = groups.flatMap((g) => groupSamples(g.group));
    assert.deepEqual(samples.map((s) => s.index).sort(), [0, 1, 2, 3, 4, 5]);
    for (const g of groups) assert.ok(g.group.every((s: any) => s.group_index === g.group_index));
    const summary = lines[3];
    assert.equal(summary.type, "summary");
    assert.equal(summary.delivered, 3);
    assert.equal(summary.aborted, 0);
    assert.equal(summary.cursor.offset, 3);
    assert.equal(clients[0]!.closed, true);
  });

  it("the summary adds up the model requests of its groups by dialect", async () => {
    const { svc } = await serve({
      shape: (_task, k) => ({ info: { dialects: { "responses+stream": 3, chat: k } } }),
    });
    const lines = (await post(`${svc.url}/rollout`, { ...base, rollout_id: 0, count: 2 })).body as any[];
    assert.deepEqual(lines.at(-1).dialects, { "responses+stream": 12, chat: 2 });
    const info = (await (await fetch(`${svc.url}/info`)).json()) as Record<string, unknown>;
    assert.deepEqual(info["dialects"], ["chat", "responses", "anthropic"]);
    assert.equal(info["streaming"], true);
  });

  it("serves /health and /info", async () => {
    const { svc } = await serve();
    assert.deepEqual(await (await fetch(`${svc.url}/health`)).json(), { status: "ok" });
    const info = (await (await fetch(`${svc.url}/info`)).json()) as any;
    assert.equal(info.taskset_id, "fake-v1");
    assert.equal(info.num_tasks, 10);
    assert.equal(info.requires_group_scoring, false);
  });

  it("answers 400 with the reason and no stack trace", async () => {
    const { svc } = await serve();
    const cases: [unknown, RegExp][] = [
      [{ rollout_id: 0, count: 1, engine_url: "http://127.0.0.1:9" }, /^n: /],
      [{ ...base, rollout_id: 0, count: 1, tempertaure: 1 }, /tempertaure/],
      [{ ...base, rollout_id: -1, count: 1 }, /^rollout_id: /],
      [{ ...base, rollout_id: 0 }, /count: required for train/],
      [{ ...base, rollout_id: 0, count: 1, engine_url: "ftp://x" }, /^engine_url: /],
      ["{not json", /invalid JSON body/],
    ];
    for (const [body, re] of cases) {
      const r = await post(`${svc.url}/rollout`, body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.match(r.body.error, re);
      assert.doesNotMatch(r.body.error, /\n\s+at /);
    }
    assert.equal((await post(`${svc.url}/abort`, { rollout_id: "x" })).status, 400);
    assert.equal((await fetch(`${svc.url}/nope`)).status, 404);
    assert.equal((await fetch(`${svc.url}/rollout`)).status, 405);
  });

  it("requires the bearer token when one is set (401), and a token for non-loopback hosts", async () => {
    const { svc } = await serve({}, { token: "s3cret" });
    assert.equal((await fetch(`${svc.url}/health`)).status, 401);
    const wrong = await fetch(`${svc.url}/info`, { headers: { authorization: "Bearer nope" } });
    assert.equal(wrong.status, 401);
    assert.deepEqual(await wrong.json(), { error: "missing or wrong bearer token" });
    const ok = await fetch(`${svc.url}/health`, { headers: { authorization: "Bearer s3cret" } });
    assert.equal(ok.status, 200);
    const r = await post(
      `${svc.url}/rollout`,
      { ...base, rollout_id: 0, count: 1 },
      { authorization: "Bearer s3cret" },
    );
    assert.equal(r.status, 200);
    await assert.rejects(
      startService({ env: new FakeEnv(), makeClient: () => new FakeClient(), host: "0.0.0.0" }),
      /non-loopback host 0\.0\.0\.0 without --token/,
    );
  });

  it("refuses an oversized body with 413", async () => {
    const { svc } = await serve({}, { bodyLimit: 1024 });
    const r = await post(`${svc.url}/rollout`, {
      ...base,
      rollout_id: 0,
      count: 1,
      sampling: { pad: "x".repeat(5000) },
    });
    assert.equal(r.status, 413);
    assert.match(r.body.error, /exceeds the limit of 1024 bytes/);
  });

  it("aborts in-flight episodes and engine requests when the client disconnects", async () => {
    const { svc, env, clients } = await serve({ delay: (t) => (t === 0 ? 5 : 10_000) });
    const lines = await streamThenDisconnect(`${svc.url}/rollout`, { ...base, rollout_id: 0, count: 4 }, 1);
    assert.equal(lines[0].task_index, 0);
    await until(() => clients[0]?.closed === true);
    assert.equal(env.aborted, 3);
    assert.equal(clients[0]!.aborts, 1);
  });

  it("POST /abort stops a step's active requests", async () => {
    const { svc, env } = await serve({ delay: () => 10_000 });
    const pending = post(`${svc.url}/rollout`, { ...base, rollout_id: 5, count: 2 });
    await until(() => env.runs.length === 2);
    const r = await post(`${svc.url}/abort`, { rollout_id: 5 });
    assert.deepEqual(r.body, { aborted: 1 });
    const lines = (await pending).body;
    const summary = Array.isArray(lines) ? lines[lines.length - 1] : lines;
    assert.equal(summary.type, "summary");
    assert.equal(summary.aborted, 2);
    assert.equal(summary.delivered, 0);
  });

  it("eval runs every eval task n times with fresh indices", async () => {
    const { svc, env } = await serve({ numEvalTasks: 4 });
    const r = await post(`${svc.url}/rollout`, { ...base, n: 3, rollout_id: 7, evaluation: true });
    const groups = r.body.filter((l: any) => l.type === "group");
    assert.equal(groups.length, 4);
    assert.deepEqual(groups.map((g: any) => g.task_index).sort(), [0, 1, 2, 3]);
    assert.ok(groups.every((g: any) => g.group.length === 3 && g.evaluation === true));
    assert.ok(env.runs.every((run) => run.split === "eval"));
    assert.equal(r.body[r.body.length - 1].cursor, null);
  });

  it("seeds rollouts seed_base + running index × n + offset, so each epoch's run of a task differs", async () => {
    const { svc, env } = await serve({ numTasks: 2 });
    const body = { ...base, count: 2, seed_base: 100, deterministic: true };
    await post(`${svc.url}/rollout`, { ...body, rollout_id: 0 });
    await post(`${svc.url}/rollout`, { ...body, rollout_id: 1 });
    const seeds = env.runs
      .map((r) => [r.taskIndex, r.seeds])
      .sort((a, b) => (a[1] as number[])[0]! - (b[1] as number[])[0]!);
    assert.deepEqual(seeds, [
      [0, [100, 101]],
      [1, [102, 103]],
      [0, [104, 105]],
      [1, [106, 107]],
    ]);
  });

  it("marks drop reasons and reports group failures without stopping the stream", async () => {
    const { svc } = await serve({
      fail: (t) => t === 1,
      shape: (t, k) => (t === 2 && k === 0 ? { errors: [{ type: "TaskError", message: "x" }] } : {}),
    });
    const r = await post(`${svc.url}/rollout`, { ...base, rollout_id: 0, count: 3, concurrency: 2 });
    const byTask = Object.fromEntries(
      r.body.filter((l: any) => l.type === "group").map((g: any) => [g.task_index, g]),
    );
    assert.equal(byTask[0].drop_reason, null);
    assert.equal(byTask[1].drop_reason, "episode_error");
    assert.match(byTask[1].error, /group reward failed/);
    assert.equal(byTask[2].drop_reason, "trace_error");
    assert.deepEqual(r.body[r.body.length - 1].dropped, { episode_error: 1, trace_error: 1 });
  });

  it("a forked trace without compact rollouts fails only its group (typed, counted), not the request", async () => {
    const two = {
      branches: twoBranches(),
    };
    const { svc } = await serve({ shape: (task) => (task === 1 ? two : {}) });
    const r = await post(`${svc.url}/rollout`, { ...base, rollout_id: 0, count: 3, concurrency: 2 });
    const summary = r.body[r.body.length - 1];
    assert.equal(summary.error, null);
    assert.equal(summary.delivered, 3);
    assert.deepEqual(summary.dropped, { conversion_error: 1 });
    const groups = r.body.filter((l: any) => l.type === "group");
    const forked = groups.find((l: any) => l.task_index === 1);
    assert.equal(forked.drop_reason, "conversion_error");
    assert.match(forked.error, /2 branches .*compact rollouts/);
    assert.deepEqual(forked.group, []);
    for (const g of groups.filter((l: any) => l.task_index !== 1)) assert.equal(g.drop_reason, null);
    const ok = await post(`${svc.url}/rollout`, { ...base, rollout_id: 0, count: 2, compact: true });
    const g = ok.body.find((l: any) => l.type === "group" && l.task_index === 1);
    assert.ok(Array.isArray(g.group[0]) && g.group[0].length === 2);
    assert.equal(g.group[0][0].rollout_id, g.group[0][1].rollout_id);
  });
});

describe("task cursor persistence", () => {
  it("/release hands back groups a client received but did not use", async () => {
    const dir = await mkdtemp(join(tmpdir(), "envroll-release-"));
    const { svc } = await serve({ delay: (t) => (t === 3 ? 10_000 : 1) }, { stateDir: dir });
    const body = { ...base, rollout_id: 0, count: 4, request_id: "r1" };
    const lines = await streamThenDisconnect(`${svc.url}/rollout`, body, 3);
    const sent = lines.map((l) => l.task_index);
    assert.deepEqual(sent.sort(), [0, 1, 2]);
    // The client judged only the first line: the other two sent groups and the running one return.
    const r = await post(`${svc.url}/release`, { request_id: "r1", used: [lines[0].seq] });
    assert.equal(r.status, 200);
    assert.deepEqual(
      r.body.released.sort(),
      lines
        .slice(1)
        .map((l) => l.task_index)
        .sort(),
    );
    const saved = JSON.parse(await readFile(join(dir, "cursor-0.json"), "utf8"));
    assert.deepEqual(saved.completed, [lines[0].task_index]);
    assert.deepEqual(
      [...saved.returned].sort(),
      [0, 1, 2, 3].filter((t) => t !== lines[0].task_index),
    );
    assert.equal((await post(`${svc.url}/release`, { request_id: "nope", used: [] })).status, 404);
    assert.equal((await post(`${svc.url}/release`, { request_id: "r1" })).status, 400);
  });

  it("resumes exactly after a restart, with aborted tasks handed out first", async () => {
    const dir = await mkdtemp(join(tmpdir(), "envroll-cursor-"));
    const a = await serve({}, { stateDir: dir });
    const tasksOf = (lines: any[]) =>
      lines
        .filter((l) => l.type === "group")
        .map((l) => l.task_index)
        .sort();
    const r0 = await post(`${a.svc.url}/rollout`, { ...base, rollout_id: 0, count: 3 });
    assert.deepEqual(tasksOf(r0.body), [0, 1, 2]);
    const saved = JSON.parse(await readFile(join(dir, "cursor-0.json"), "utf8"));
    assert.deepEqual(saved.completed.sort(), [0, 1, 2]);
    assert.equal(saved.offset, 3);
    await a.svc.close();

    // Restart: step 1 starts where step 0 ended.
    const b = await serve({ delay: (t) => (t === 3 ? 1 : 10_000) }, { stateDir: dir });
    const lines = await streamThenDisconnect(`${b.svc.url}/rollout`, { ...base, rollout_id: 1, count: 3 }, 1);
    assert.equal(lines[0].task_index, 3);
    await until(() => b.clients[0]?.closed === true);
    await b.svc.close();

    // Restart again: 4 and 5 were aborted, so the refill of step 1 runs them before task 6.
    const c = await serve({}, { stateDir: dir });
    const r1 = await post(`${c.svc.url}/rollout`, {
      ...base,
      rollout_id: 1,
      count: 3,
      cursor: { mode: "continue" },
    });
    assert.deepEqual(tasksOf(r1.body), [4, 5, 6]);
    const r2 = await post(`${c.svc.url}/rollout`, { ...base, rollout_id: 2, count: 4 });
    assert.deepEqual(tasksOf(r2.body), [7, 8, 9, 0].sort());
    assert.equal(r2.body[r2.body.length - 1].cursor.epoch, 1);

    // A trainer restarted from the step-1 checkpoint re-runs step 2 from the state after step 1.
    const again = await post(`${c.svc.url}/rollout`, { ...base, rollout_id: 2, count: 4 });
    assert.deepEqual(tasksOf(again.body), [7, 8, 9, 0].sort());
  });
});
