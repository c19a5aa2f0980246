/**
 * pass@k and pass^k over groups of rollouts (the unbiased estimators verifiers' legacy
 * `vf-eval` reports).
 *
 * For one task with n rollouts of which c are correct:
 * - pass@k = 1 − C(n−c, k) / C(n, k): the chance that at least one of k rollouts drawn without
 *   replacement is correct;
 * - pass^k = C(c, k) / C(n, k): the chance that all k drawn rollouts are correct.
 * Both are averaged over tasks. k runs over powers of two ≤ n, and only when n > 1, because
 * with one rollout both numbers are just the accuracy.
 */

/**
 * C(a, b) / C(n, b) computed as a running product of ratios, because the binomials
 * themselves overflow doubles for n in the hundreds while the ratio stays in [0, 1].
 */
export function binomialRatio(a: number, n: number, k: number): number {
  if (k < 0 || k > n) throw new RangeError(`k=${k} outside [0, ${n}]`);
  if (a < k) return 0;
  let ratio = 1;
  for (let i = 0; i < k; i++) ratio *= (a - i) / (n - i);
  return ratio;
}

/** 1 − C(n−c, k)/C(n, k). */
export function passAtK(n: number, c: number, k: number): number {
  checkCounts(n, c);
  return 1 - binomialRatio(n - c, n, k);
}

/** C(c, k)/C(n, k). */
export function passHatK(n: number, c: number, k: number): number {
  checkCounts(n, c);
  return binomialRatio(c, n, k);
}

function checkCounts(n: number, c: number): void {
  if (!Number.isInteger(n) || !Number.isInteger(c) || n < 1 || c < 0 || c > n) {
    throw new RangeError(`invalid counts n=${n} c=${c}`);
  }
}

/** Powers of two ≤ n (empty when n ≤ 1). */
export function passKs(n: number): number[] {
  const ks: number[] = [];
  if (n <= 1) return ks;
  for (let k = 1; k <= n; k *= 2) ks.push(k);
  return ks;
}

export interface PassResult {
  /** k (as a string, JSON keys) → mean over tasks. */
  pass_at_k: Record<string, number>;
  pass_all_k: Record<string, number>;
  /** Tasks that entered the average (those with exactly n rollouts). */
  num_tasks: number;
}

/**
 * Averages both estimators over tasks. `groups` holds one array of correctness flags per task;
 * only groups of exactly `n` rollouts count, so an interrupted run does not mix group sizes.
 */
export function passStats(groups: readonly (readonly boolean[])[], n: number): PassResult {
  const complete = groups.filter((g) => g.length === n);
  const result: PassResult = { pass_at_k: {}, pass_all_k: {}, num_tasks: complete.length };
  if (complete.length === 0) return result;
  for (const k of passKs(n)) {
    let at = 0;
    let all = 0;
    for (const g of complete) {
      const c = g.filter(Boolean).length;
      at += passAtK(n, c, k);
      all += passHatK(n, c, k);
    }
    result.pass_at_k[String(k)] = at / complete.length;
    result.pass_all_k[String(k)] = all / complete.length;
  }
  return result;
}
