import assert from "node:assert/strict";
import { test } from "node:test";
import { PrefixCache } from "../../packages/engine/src/prefix-cache.ts";

const seq = (start: number, n: number) => Array.from({ length: n }, (_, i) => start + i);

test("a prompt extending a cached prompt+completion reuses its whole blocks, never the last token", () => {
  const c = new PrefixCache();
  const first = seq(1, 40); // blocks end at 16 and 32
  assert.equal(c.lookup(first), 0);
  c.insert(first);
  assert.equal(c.lookup([...first, 99, 98]), 32);
  assert.equal(c.lookup(seq(1, 32)), 31, "a prompt that is exactly cached still computes its last token");
  assert.equal(c.lookup([2, ...seq(2, 39)]), 0, "a different first token shares nothing");
});

test("the cache holds at most maxBlocks and evicts the block inserted (or re-inserted) longest ago", () => {
  const c = new PrefixCache(3);
  const a = seq(1000, 16);
  const b = seq(2000, 16);
  const d = seq(3000, 16);
  const e = seq(4000, 16);
  for (const x of [a, b, d]) c.insert(x);
  assert.equal(c.size, 3);
  c.insert(a); // refreshes a: b is now the oldest
  assert.equal(c.lookup([...b, 1]), 16, "a lookup does not refresh");
  c.insert(e);
  assert.equal(c.size, 3);
  assert.equal(c.lookup([...b, 1]), 0, "b was evicted");
  for (const x of [a, d, e]) assert.equal(c.lookup([...x, 1]), 16);
  assert.throws(() => new PrefixCache(0), /maxBlocks/);
});
