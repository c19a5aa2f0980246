import assert from "node:assert/strict";
import { test } from "node:test";
import { SessionTable, SglangTransport } from "../../packages/core/src/transport/index.ts";
import { startScripted } from "./scripted-server.ts";

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
  const server = await startScripted([]);
  const t = new SglangTransport({ baseUrl: server.url, sessionCapacity: 3 });
  const dflt = new SglangTransport({ baseUrl: server.url });
  assert.equal(dflt.sessions.capacity, 10_000);
  try {
    for (const s of ["a", "a", "b", "c", "d", "a"]) await t.generate({ inputIds: [1, 2, 3], sessionId: s });
    const rids = server.bodies.map((b) => (b as { rid: string }).rid.replace(/:[0-9a-f]{8}$/, ""));
    assert.deepEqual(rids, ["a:0", "a:1", "b:0", "c:0", "d:0", "a:0"]);
    assert.equal(t.sessions.size, 3);
  } finally {
    await t.close();
    await dflt.close();
    await server.close();
  }
});
