import assert from "node:assert/strict";
import { test } from "node:test";
import {
  binomialRatio,
  passAtK,
  passHatK,
  passKs,
  passStats,
} from "../../packages/core/src/outputs/pass-at-k.ts";

function choose(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  let r = 1;
  for (let i = 1; i <= k; i++) r = (r * (n - k + i)) / i;
  return r;
}

test("pass@k and pass^k match the binomial formulas for every n ≤ 12, c, k", () => {
  for (let n = 1; n <= 12; n++) {
    for (let c = 0; c <= n; c++) {
      for (let k = 1; k <= n; k++) {
        const at = 1 - choose(n - c, k) / choose(n, k);
        const all = choose(c, k) / choose(n, k);
        assert.ok(Math.abs(passAtK(n, c, k) - at) < 1e-12, `pass@${k} n=${n} c=${c}`);
        assert.ok(Math.abs(passHatK(n, c, k) - all) < 1e-12, `pass^${k} n=${n} c=${c}`);
      }
    }
  }
});

test("edge values", () => {
  assert.equal(passAtK(4, 0, 2), 0);
  assert.equal(passAtK(4, 4, 1), 1);
  assert.equal(passAtK(4, 3, 2), 1); // n−c < k: any 2 draws include a correct one
  assert.equal(passHatK(4, 1, 2), 0);
  assert.equal(passHatK(4, 4, 4), 1);
  assert.equal(passAtK(4, 1, 1), 0.25);
  assert.equal(passAtK(4, 2, 2), 1 - 1 / 6);
  assert.equal(passHatK(4, 2, 2), 1 / 6);
});

test("large n stays finite and in [0, 1]", () => {
  const v = passAtK(1024, 3, 512);
  assert.ok(v > 0.8 && v <= 1);
  assert.ok(Number.isFinite(binomialRatio(900, 1024, 1024)));
});

test("k runs over powers of two ≤ n, none for n ≤ 1", () => {
  assert.deepEqual(passKs(1), []);
  assert.deepEqual(passKs(2), [1, 2]);
  assert.deepEqual(passKs(4), [1, 2, 4]);
  assert.deepEqual(passKs(6), [1, 2, 4]);
  assert.deepEqual(passKs(16), [1, 2, 4, 8, 16]);
});

test("invalid counts throw", () => {
  assert.throws(() => passAtK(3, 4, 1), RangeError);
  assert.throws(() => passHatK(3, 1, 4), RangeError);
});

test("passStats averages over complete groups only", () => {
  const groups = [
    [true, false, false, false], // c=1
    [true, true, true, true], // c=4
    [true, true], // incomplete, ignored
  ];
  const s = passStats(groups, 4);
  assert.equal(s.num_tasks, 2);
  assert.deepEqual(Object.keys(s.pass_at_k), ["1", "2", "4"]);
  assert.ok(Math.abs(s.pass_at_k["1"]! - (0.25 + 1) / 2) < 1e-12);
  assert.ok(Math.abs(s.pass_at_k["2"]! - (0.5 + 1) / 2) < 1e-12);
  assert.ok(Math.abs(s.pass_all_k["2"]! - (0 + 1) / 2) < 1e-12);
  assert.ok(Math.abs(s.pass_all_k["4"]! - 0.5) < 1e-12);
});
