import assert from "node:assert/strict";
import { test } from "node:test";
import { mulberry32 } from "../../packages/core/src/random.ts";
import { TokenSequence } from "../../packages/core/src/token-sequence.ts";

test("append never changes an existing sequence, also when extensions of it diverge (fork)", () => {
  const base = TokenSequence.from([1, 2, 3]);
  const a = base.append([4, 5]);
  const b = base.append([4, 9, 9]); // shares 4, then diverges from a
  const c = base.append([7]);
  const a2 = a.append([6]);
  assert.deepEqual(base.toArray(), [1, 2, 3]);
  assert.deepEqual(a.toArray(), [1, 2, 3, 4, 5]);
  assert.deepEqual(b.toArray(), [1, 2, 3, 4, 9, 9]);
  assert.deepEqual(c.toArray(), [1, 2, 3, 7]);
  assert.deepEqual(a2.toArray(), [1, 2, 3, 4, 5, 6]);
  // Re-appending what is already there is the same sequence, not a fork.
  assert.ok(base.append([4, 5]).equals(a));
  assert.ok(a.startsWith(base) && !c.startsWith(a) && b.startsWith([1, 2, 3, 4]));
});

test("random appends and forks: every sequence equals the plain array built alongside it", () => {
  const rand = mulberry32(7);
  const seqs: TokenSequence[] = [TokenSequence.from([0])];
  const arrays: number[][] = [[0]];
  for (let step = 0; step < 2000; step++) {
    const k = Math.floor(rand() * seqs.length);
    const n = Math.floor(rand() * 40);
    // Small alphabet so extensions often agree for a while before they diverge.
    const ids = Array.from({ length: n }, () => Math.floor(rand() * 3));
    const from = Math.floor(rand() * (n + 1));
    seqs.push(seqs[k]!.append(ids, from));
    arrays.push(arrays[k]!.concat(ids.slice(from)));
  }
  seqs.forEach((s, i) => {
    assert.deepEqual(s.toArray(), arrays[i], `sequence ${i}`);
    assert.equal(s.jsonText(), JSON.stringify(arrays[i]), `json ${i}`);
  });
});

test("slice, at, iteration, JSON and matchesAt follow the array semantics", () => {
  const s = TokenSequence.from([5, 6, 7, 8]).append([9]);
  assert.deepEqual(s.slice(1, 3), [6, 7]);
  assert.deepEqual(s.slice(-2), [8, 9]);
  assert.equal(s.at(-1), 9);
  assert.equal(s.at(5), undefined);
  assert.deepEqual([...s], [5, 6, 7, 8, 9]);
  assert.equal(JSON.stringify({ input_ids: s }), '{"input_ids":[5,6,7,8,9]}');
  assert.equal(TokenSequence.from([]).jsonText(), "[]");
  const edge = [0, -5, 2147483647, -2147483648, 10, 9, 99, 100, 1000000000, 999999999];
  assert.equal(TokenSequence.from(edge).jsonText(), JSON.stringify(edge));
  assert.ok(s.matchesAt(2, [7, 8]) && !s.matchesAt(2, [7, 9]) && !s.matchesAt(4, [9, 10]));
  assert.ok(s.matchesAt(0, TokenSequence.from([5, 6])));
});

test("a non-integer or out-of-range id is refused with its index", () => {
  assert.throws(() => TokenSequence.from([1, 2.5]), /token id 2\.5 at index 1/);
  assert.throws(() => TokenSequence.from([1]).append([2 ** 31]), /token id 2147483648 at index 0/);
});

test("writeJsonIds writes the JSON elements of a fresh sequence in place and of an extended one from its cache", () => {
  const written = (s: TokenSequence) => {
    const out = Buffer.alloc(s.jsonIdsLength() + 2, 0x2e);
    const end = s.writeJsonIds(out, 1);
    assert.equal(end, out.length - 1);
    return out.toString("latin1");
  };
  const fresh = TokenSequence.from([151644, 0, -7, 2147483647, 12]);
  assert.equal(written(fresh), ".151644,0,-7,2147483647,12.");
  assert.equal(written(TokenSequence.from([])), "..");
  // Extended: the buffer's ids are now cached, and both sequences read from it unchanged.
  const grown = fresh.append([3, -2147483648]);
  assert.equal(written(grown), ".151644,0,-7,2147483647,12,3,-2147483648.");
  assert.equal(written(fresh), ".151644,0,-7,2147483647,12.");
  assert.equal(fresh.jsonText(), "[151644,0,-7,2147483647,12]");
});
