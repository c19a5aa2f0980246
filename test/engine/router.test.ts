/**
 * Router mode: K workers behind a consistent-hash ring keyed by X-SMG-Routing-Key.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type EngineHandle, startEngine } from "../../packages/engine/src/index.ts";

let engine: EngineHandle;
const PROMPT = [151644, 872, 198, 9707, 151645, 198, 151644, 77091, 198];

before(async () => {
  engine = await startEngine({ workers: 4 });
});
after(() => engine.close());

async function workerFor(headers: Record<string, string>): Promise<string> {
  const res = await fetch(`${engine.url}/generate`, {
    method: "POST",
    headers,
    body: JSON.stringify({ input_ids: PROMPT }),
  });
  assert.equal(res.status, 200);
  await res.arrayBuffer();
  return res.headers.get("x-envroll-worker") ?? "?";
}

test("the same routing key always reaches the same worker; keys spread over workers", async () => {
  const owners = new Map<string, string>();
  for (let k = 0; k < 24; k++) {
    const key = `session-${k}`;
    const seen = new Set<string>();
    for (let i = 0; i < 5; i++) seen.add(await workerFor({ "x-smg-routing-key": key }));
    assert.equal(seen.size, 1, `${key} hit ${[...seen]}`);
    owners.set(key, [...seen][0]!);
  }
  assert.ok(new Set(owners.values()).size >= 3, `keys landed on ${new Set(owners.values()).size} workers`);
});

test("X-SMG-Target-Worker pins a worker; out of range fails", async () => {
  assert.equal(await workerFor({ "x-smg-target-worker": "2" }), "2");
  const res = await fetch(`${engine.url}/generate`, {
    method: "POST",
    headers: { "x-smg-target-worker": "9" },
    body: JSON.stringify({ input_ids: PROMPT }),
  });
  assert.equal(res.status, 503);
});

test("/workers and /list_workers list the worker URLs; /engine_stats counts per worker", async () => {
  const workers = (await (await fetch(`${engine.url}/workers`)).json()) as {
    workers: { url: string }[];
    total: number;
  };
  assert.deepEqual(
    workers.workers.map((w) => w.url),
    engine.workerUrls,
  );
  assert.equal(workers.total, 4);
  const list = (await (await fetch(`${engine.url}/list_workers`)).json()) as { urls: string[] };
  assert.deepEqual(list.urls, engine.workerUrls);
  const stats = (await (await fetch(`${engine.url}/engine_stats`)).json()) as {
    requests: number;
    workers: { requests: number }[];
  };
  assert.equal(stats.workers.length, 4);
  assert.equal(
    stats.workers.reduce((a, w) => a + w.requests, 0),
    stats.requests,
  );
});

test("weight version updates fan out to every worker", async () => {
  const res = await fetch(`${engine.url}/update_weight_version`, {
    method: "POST",
    body: JSON.stringify({ new_version: "v9" }),
  });
  assert.equal(res.status, 200);
  for (const url of engine.workerUrls) {
    const v = (await (await fetch(`${url}/get_weight_version`)).json()) as { weight_version: string };
    assert.equal(v.weight_version, "v9");
  }
});

test("manual and round_robin router policies: manual is sticky per key, round_robin ignores keys", async () => {
  for (const routerPolicy of ["manual", "round_robin"] as const) {
    const e = await startEngine({ workers: 2, routerPolicy });
    try {
      const seen = new Set<string>();
      for (let i = 0; i < 6; i++) {
        const res = await fetch(`${e.url}/generate`, {
          method: "POST",
          headers: { "x-smg-routing-key": "one-key" },
          body: JSON.stringify({ input_ids: PROMPT }),
        });
        await res.arrayBuffer();
        seen.add(res.headers.get("x-envroll-worker") ?? "?");
      }
      assert.equal(seen.size, routerPolicy === "manual" ? 1 : 2, routerPolicy);
    } finally {
      await e.close();
    }
  }
});
