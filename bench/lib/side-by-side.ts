/**
 * Two or more variants measured in alternating chunks (the order flipped every round), so each
 * sees the same moving machine load; per-round pairs are steadier than the sides' medians.
 */
import { median } from "./report.ts";

export interface Sampled {
  /** This process's CPU per item, one entry per measured chunk. */
  cpu: number[];
  /** The engine child's CPU per item, likewise. */
  engine: number[];
}

/** `warm` unmeasured chunks per side, then `rounds` measured ones; `chunk` returns [cpu, engine]. */
export async function alternate<S extends Sampled>(
  sides: S[],
  chunk: (s: S) => Promise<[number, number]>,
  warm: number,
  rounds: number,
): Promise<void> {
  for (let w = 0; w < warm; w++) for (const s of sides) await chunk(s);
  for (let r = 0; r < rounds; r++)
    for (const s of r % 2 ? [...sides].reverse() : sides) {
      const [c, e] = await chunk(s);
      s.cpu.push(c);
      s.engine.push(e);
    }
}

/** The median over rounds of b / a for one measure. */
export function paired(a: Sampled, b: Sampled, k: keyof Sampled): number {
  return median(a[k].map((x, i) => b[k][i]! / x));
}
