/**
 * code-golf's group bonuses: the shortest program and the fastest run each win 1.0 (weighted 0.5
 * by the taskset); every tie wins — the bonus is not split.
 *
 * Who competes is the one behavioural choice. verifiers 0.2.0 let every rollout compete, so a
 * failing program could win both bonuses, and a group where nobody wrote a program (length 1e9,
 * latency 1e6 for all) tied and took both. Later verifiers let only passing programs compete;
 * that is envroll's default, and `bonus_for_failing = true` reproduces 0.2.0 exactly.
 */

export interface Contestant {
  /** Program length in code points (0 = no program). */
  length: number;
  /** Seconds; 1e6 when there was no program or the metric is missing. */
  latency: number;
  passed: boolean;
}

/** 0.2.0 maps an empty program to a length no real program reaches. */
const NO_PROGRAM_LENGTH = 1e9;

function winners(values: readonly number[], eligible: readonly boolean[]): number[] {
  const pool = values.filter((_, i) => eligible[i]);
  if (pool.length === 0) return values.map(() => 0);
  const best = Math.min(...pool);
  return values.map((v, i) => (eligible[i] && v === best ? 1 : 0));
}

function eligibility(cs: readonly Contestant[], bonusForFailing: boolean): boolean[] {
  return cs.map((c) => bonusForFailing || c.passed);
}

export function mostConcise(cs: readonly Contestant[], bonusForFailing: boolean): number[] {
  return winners(
    cs.map((c) => c.length || NO_PROGRAM_LENGTH),
    eligibility(cs, bonusForFailing),
  );
}

export function fastest(cs: readonly Contestant[], bonusForFailing: boolean): number[] {
  return winners(
    cs.map((c) => c.latency),
    eligibility(cs, bonusForFailing),
  );
}
