/**
 * Differential test against the local CPython's difflib on seeded random inputs, aimed at the
 * parts the visible fixture samples only thinly: the autojunk threshold around len(b) = 200,
 * popular elements adjacent to matches, astral characters and near-duplicates.
 * Skipped when python3 is not installed.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";
import { matchingBlocks, quickRatio, sequenceMatcherRatio } from "../../packages/core/src/difflib/index.ts";
import { stringMatcher } from "../../packages/core/src/difflib/ratio.ts";

const PY = `
import sys, json, difflib
out = []
for a, b in json.load(sys.stdin):
    s = difflib.SequenceMatcher(None, a, b)
    out.append([s.ratio(), [list(m) for m in s.get_matching_blocks()], s.quick_ratio(),
                difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()])
json.dump(out, sys.stdout)
`;

import { mulberry32 } from "../../packages/core/src/random.ts";

const ALPHABETS = [
  "ab",
  "acgt",
  "abcdefghij ",
  "xyz é漢字🙂👩‍💻",
  "0123456789abcdefghijklmnopqrstuvwxyz  .,",
];

function randomCases(n: number): [string, string][] {
  const rng = mulberry32(20260529);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rng() * xs.length)]!;
  const cases: [string, string][] = [];
  for (let c = 0; c < n; c++) {
    const alphabet = Array.from(pick(ALPHABETS));
    const lenB = pick([0, 1, 5, 50, 150, 198, 199, 200, 201, 250, 400]);
    const b = Array.from({ length: lenB }, () => pick(alphabet));
    let a: string[];
    const mode = rng();
    if (mode < 0.33) a = [...b].reverse();
    else if (mode < 0.66) a = b.map((x) => (rng() < 0.1 ? pick(alphabet) : x)).filter(() => rng() > 0.05);
    else a = Array.from({ length: Math.floor(rng() * 300) }, () => pick(alphabet));
    cases.push([a.join(""), b.join("")]);
  }
  return cases;
}

const python = spawnSync("python3", ["-c", "import difflib"], { encoding: "utf8" });

test("difflib port equals the local CPython on 300 random cases", { skip: python.status !== 0 }, () => {
  const cases = randomCases(300);
  const res = spawnSync("python3", ["-c", PY], { input: JSON.stringify(cases), encoding: "utf8" });
  assert.equal(res.status, 0, res.stderr);
  const want = JSON.parse(res.stdout) as [number, number[][], number, number][];
  let autojunkMattered = 0;
  cases.forEach(([a, b], i) => {
    const [ratio, blocks, quick, noJunk] = want[i]!;
    assert.equal(sequenceMatcherRatio(a, b), ratio, `case ${i} ratio`);
    assert.deepEqual(matchingBlocks(a, b), blocks, `case ${i} blocks`);
    assert.equal(quickRatio(a, b), quick, `case ${i} quick`);
    assert.equal(sequenceMatcherRatio(a, b, { autojunk: false }), noJunk, `case ${i} autojunk=false`);
    if (ratio !== noJunk) autojunkMattered++;
  });
  // The battery must exercise the heuristic, or this test proves little about it.
  assert.ok(autojunkMattered > 10, `autojunk changed only ${autojunkMattered} ratios`);
});

/**
 * `sequenceMatcherRatio` answers identical strings with 1 without running the matcher; the
 * matcher itself (and CPython) must agree on exactly the inputs where autojunk is active
 * (len >= 200) and a repeated run could pull the first match off the diagonal.
 */
test(
  "identical strings: ratio 1 from the matcher and CPython, autojunk or not",
  { skip: python.status !== 0 },
  () => {
    const rng = mulberry32(20261201);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(rng() * xs.length)]!;
    const cases: string[] = [];
    for (let c = 0; c < 200; c++) {
      const alphabet = Array.from(pick(ALPHABETS));
      const n = pick([1, 2, 150, 199, 200, 201, 250, 400, 480]);
      const unit = Array.from({ length: 1 + Math.floor(rng() * 20) }, () => pick(alphabet));
      const s = Array.from({ length: n }, (_, i) => (rng() < 0.5 ? unit[i % unit.length]! : pick(alphabet)));
      cases.push(s.join(""));
    }
    const res = spawnSync("python3", ["-c", PY], {
      input: JSON.stringify(cases.map((s) => [s, s])),
      encoding: "utf8",
    });
    assert.equal(res.status, 0, res.stderr);
    const want = JSON.parse(res.stdout) as [number, number[][], number, number][];
    cases.forEach((s, i) => {
      assert.equal(want[i]![0], 1, `case ${i}: CPython`);
      assert.equal(stringMatcher(s, s).ratio(), 1, `case ${i}: the matcher`);
      assert.equal(stringMatcher(s, s, { autojunk: false }).ratio(), 1, `case ${i}: no autojunk`);
      assert.equal(sequenceMatcherRatio(s, s), 1, `case ${i}`);
    });
  },
);
