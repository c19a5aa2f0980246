/** The difflib port against CPython 3.11's own outputs (fixtures/difflib_visible.json). */
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  codePoints,
  matchingBlocks,
  popularElements,
  quickRatio,
  realQuickRatio,
  SequenceMatcher,
  sequenceMatcherRatio,
} from "../../packages/core/src/difflib/index.ts";
import { mulberry32 } from "../../packages/core/src/random.ts";
import { readFixture } from "../fixtures.ts";

interface DifflibCase {
  id: string;
  category: string;
  a: string;
  b: string;
  len_a_codepoints: number;
  len_b_codepoints: number;
  ratio: number;
  matching_blocks: [number, number, number][];
  quick_ratio: number;
  real_quick_ratio: number;
  ratio_autojunk_false: number;
  b_popular_junk_chars: string[];
}

const fixture = readFixture("difflib_visible.json") as {
  cases: DifflibCase[];
};
const close = (got: number, want: number, what: string) =>
  assert.ok(Math.abs(got - want) <= 1e-12, `${what}: got ${got}, want ${want}`);

test("fixture is non-trivial (covers autojunk and astral cases)", () => {
  assert.ok(fixture.cases.length >= 100);
  assert.ok(fixture.cases.some((c) => c.b_popular_junk_chars.length > 0));
  assert.ok(fixture.cases.some((c) => c.len_a_codepoints !== c.a.length));
});

for (const c of fixture.cases) {
  test(`difflib ${c.id} (${c.category})`, () => {
    assert.equal(codePoints(c.a).length, c.len_a_codepoints);
    assert.equal(codePoints(c.b).length, c.len_b_codepoints);
    close(sequenceMatcherRatio(c.a, c.b), c.ratio, "ratio");
    assert.deepEqual(matchingBlocks(c.a, c.b), c.matching_blocks);
    close(quickRatio(c.a, c.b), c.quick_ratio, "quick_ratio");
    close(realQuickRatio(c.a, c.b), c.real_quick_ratio, "real_quick_ratio");
    close(
      sequenceMatcherRatio(c.a, c.b, { autojunk: false }),
      c.ratio_autojunk_false,
      "ratio autojunk=false",
    );
    assert.deepEqual(popularElements(c.a, c.b), [...c.b_popular_junk_chars].sort(byCodePoint));
  });
}

function byCodePoint(x: string, y: string): number {
  return x.codePointAt(0)! - y.codePointAt(0)!;
}

test("identical strings: the fast path agrees with the matcher on both sides of the autojunk limit", () => {
  for (const s of [
    "",
    "a",
    "abc".repeat(66),
    "ab".repeat(100),
    "😀".repeat(150) + "x".repeat(60),
    "e".repeat(250),
  ]) {
    const slow = new SequenceMatcher(Array.from(s), Array.from(s)).ratio();
    assert.equal(sequenceMatcherRatio(s, s), slow, `len ${s.length}`);
  }
  // CPython 3.11 gives 1.0 here too: the junk-extension steps recover the popular run.
  assert.equal(sequenceMatcherRatio("e".repeat(250), "e".repeat(250)), 1);
});

test("one empty side: the shortcut agrees with the matcher (0, or 1 when both are empty)", () => {
  for (const [a, b] of [
    ["", ""],
    ["", "abc"],
    ["abc", ""],
    ["", "e".repeat(250)],
    ["😀".repeat(210), ""],
  ] as const) {
    const slow = new SequenceMatcher(Array.from(a), Array.from(b)).ratio();
    assert.equal(sequenceMatcherRatio(a, b), slow, `${a.length} vs ${b.length}`);
  }
});

test("code points read straight from UTF-16 (pairs, lone surrogates) match the generic matcher", () => {
  const rng = mulberry32(7);
  const alphabet = ["a", "b", " ", "é", "😀", "👩", "\u200d", "\ud800", "\udc00", "x"];
  for (let c = 0; c < 200; c++) {
    const word = (n: number) =>
      Array.from({ length: n }, () => alphabet[Math.floor(rng() * alphabet.length)]).join("");
    const b = word(Math.floor(rng() * 260));
    const a =
      rng() < 0.5 ? b.slice(0, Math.floor(rng() * b.length)) + word(5) : word(Math.floor(rng() * 260));
    for (const autojunk of [true, false]) {
      const slow = new SequenceMatcher(Array.from(a), Array.from(b), { autojunk }).ratio();
      assert.equal(sequenceMatcherRatio(a, b, { autojunk }), slow, `case ${c} autojunk=${autojunk}`);
    }
  }
});
