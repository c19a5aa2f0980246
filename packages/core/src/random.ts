/**
 * Seeded randomness shared by the engine, tasksets, data generators and tests. Everything the
 * engine invents (logprobs, reply noise, faults) and every generated dataset comes from these
 * generators, so a run is reproducible from its seeds.
 */

/** A PRNG returning floats in [0, 1). */
export type Rng = () => number;

/** mulberry32: tiny, fast, good enough for test noise (not for cryptography). */
export function mulberry32(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** FNV-1a over a string, continuing from `h` so several parts can be mixed into one seed. */
export function hashString(s: string, h = 0x811c9dc5): number {
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** FNV-1a-style mix of a list of integers. */
export function hashIds(ids: readonly number[], h = 0x811c9dc5): number {
  for (let i = 0; i < ids.length; i++) {
    h ^= ids[i]!;
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Integer in [0, n). */
export function randInt(rng: Rng, n: number): number {
  return Math.floor(rng() * n);
}

/** Fisher–Yates over a copy: the same order for the same generator state. */
export function shuffle<T>(items: readonly T[], rng: Rng): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
