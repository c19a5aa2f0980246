/**
 * Seeded randomness shared by the engine, tasksets, data generators and tests. Everything the
 * engine invents (logprobs, reply noise, faults) and every generated dataset comes from these
 * generators, so a run is reproducible from its seeds.
 *
 * And the one pool of secure random bytes (ids, nonces, secrets): a `randomBytes(n)` per use is a
 * native call and a Buffer each, which at a few per rollout (rid nonces, trace ids, the
 * interception secrets, the runtime's reap tag) was ~5 % of a single-turn rollout's CPU. Each byte
 * is handed out once, so a string is as unpredictable as if drawn alone.
 */
import { randomFillSync } from "node:crypto";

const POOL_BYTES = 8192;
const pool = Buffer.allocUnsafe(POOL_BYTES);
let used = POOL_BYTES;

/** `n` (≤ 8192) fresh secure random bytes at `pool[at … at + n)`, valid until the next call. */
export function takeRandomBytes(n: number): { pool: Buffer; at: number } {
  if (used + n > POOL_BYTES) {
    randomFillSync(pool);
    used = 0;
  }
  const at = used;
  used += n;
  return { pool, at };
}

/** `n` secure random bytes as 2n lowercase hex digits. */
export function randomHex(n: number): string {
  const { pool: p, at } = takeRandomBytes(n);
  return p.toString("hex", at, at + n);
}

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
