import assert from "node:assert/strict";
import { mkdtemp, readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { type RunningService, startService } from "../../packages/core/src/service/server.ts";
import { FakeClient, FakeEnv } from "./fake-env.ts";
import { post } from "./http.ts";

const running: RunningService[] = [];
after(async () => {
  for (const s of running) await s.close();
});

async function serve(stateDir: string) {
  const env = new FakeEnv({ numTasks: 6, numEvalTasks: 3 });
  const svc = await startService({ env, makeClient: () => new FakeClient(), stateDir });
  running.push(svc);
  return { env, svc };
}

const base = { engine_url: "http://127.0.0.1:9", n: 2 };

describe("rollout requests with client-chosen tasks (the client owns the cursor)", () => {
  it("runs exactly the given tasks, seeded by their slots, and leaves the service cursor alone", async () => {
    const stateDir = await mkdtemp(join(tmpdir(), "envroll-tasks-"));
    const { svc, env } = await serve(stateDir);
    const tasks = [
      { task: 4, slot: 10 },
      { task: 1, slot: 7 },
    ];
    const body = { ...base, rollout_id: 3, tasks, seed_base: 100, deterministic: true };
    const r = await post(`${svc.url}/rollout`, body);
    assert.equal(r.status, 200);
    const groups = r.body.filter((l: any) => l.type === "group");
    assert.deepEqual(groups.map((g: any) => [g.seq, g.task_index]).sort(), [
      [0, 4],
      [1, 1],
    ]);
    const seeds = Object.fromEntries(env.runs.map((run) => [run.taskIndex, run.seeds]));
    assert.deepEqual(seeds, { 4: [120, 121], 1: [114, 115] });
    const summary = r.body.at(-1);
    assert.equal(summary.requested, 2);
    assert.equal(summary.cursor, null);
    assert.deepEqual(await readdir(stateDir), []);
  });

  it("eval runs only the given eval tasks", async () => {
    const { svc, env } = await serve(await mkdtemp(join(tmpdir(), "envroll-tasks-")));
    const r = await post(`${svc.url}/rollout`, {
      ...base,
      rollout_id: 0,
      evaluation: true,
      tasks: [{ task: 2, slot: 2 }],
    });
    const groups = r.body.filter((l: any) => l.type === "group");
    assert.deepEqual(
      groups.map((g: any) => g.task_index),
      [2],
    );
    assert.deepEqual(
      env.runs.map((run) => [run.split, run.taskIndex]),
      [["eval", 2]],
    );
  });

  it("refuses a task index out of range with 400 naming it", async () => {
    const { svc, env } = await serve(await mkdtemp(join(tmpdir(), "envroll-tasks-")));
    const r = await post(`${svc.url}/rollout`, {
      ...base,
      rollout_id: 0,
      tasks: [
        { task: 0, slot: 0 },
        { task: 6, slot: 1 },
      ],
    });
    assert.equal(r.status, 400);
    assert.match(r.body.error, /tasks\.1\.task: 6 is out of range \(6 train tasks\)/);
    assert.equal(env.runs.length, 0);
  });
});
