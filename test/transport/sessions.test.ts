import assert from "node:assert/strict";
import { test } from "node:test";
import { startEngine } from "../../src/engine/index.ts";
import { SessionTable, SglangTransport } from "../../src/transport/index.ts";

test("the session LRU stays at its bound after 100,000 sessions", () => {
  const table = new SessionTable(10_000);
  for (let i = 0; i < 100_000; i++) {
    table.nextTurn(`session-${i}`);
    if (i % 7 === 0) table.nextTurn(`session-${i}`);
  }
  assert.equal(table.size, 10_000);
  assert.equal(table.capacity, 10_000);
  // The most recent sessions are kept, the oldest evicted.
  assert.equal(table.isNew("session-99999"), false);
  assert.equal(table.isNew("session-0"), true);
});

test("the transport's default capacity is 10,000 and eviction resets a session's turn counter", async () => {
  const engine = await startEngine();
  const t = new SglangTransport({ baseUrl: engine.url, sessionCapacity: 3 });
  const dflt = new SglangTransport({ baseUrl: engine.url });
  assert.equal(dflt.sessions.capacity, 10_000);
  try {
    const rids: string[] = [];
    for (const s of ["a", "a", "b", "c", "d", "a"])
      rids.push((await t.generate({ inputIds: [1, 2, 3], sessionId: s })).rid);
    assert.deepEqual(rids, ["a:0", "a:1", "b:0", "c:0", "d:0", "a:0"]);
    assert.equal(t.sessions.size, 3);
  } finally {
    await t.close();
    await dflt.close();
    await engine.close();
  }
});
