/**
 * A stand-in for SGLang's radix cache, just enough to report `cached_tokens` faithfully for the
 * common RL case: a turn whose prompt extends an earlier prompt+completion reuses that prefix.
 *
 * Prefixes are remembered by hash at block boundaries (16 tokens), so a lookup or insert costs
 * O(length / 16) set operations; the set is an LRU so memory stays bounded. The LRU is a Map in
 * insertion order (re-inserting moves a key to the end): lru-cache allocates its arrays for the
 * whole capacity up front, ~50 ms at 500k blocks on every start of the embedded engine.
 */

const BLOCK = 16;

export class PrefixCache {
  /** Blocks held now (at most `maxBlocks`). */
  get size(): number {
    return this.seen.size;
  }

  private readonly seen = new Map<number, true>();

  constructor(private readonly maxBlocks = 500_000) {
    if (!Number.isInteger(maxBlocks) || maxBlocks < 1)
      throw new Error(`PrefixCache: maxBlocks must be a positive integer, got ${maxBlocks}`);
  }

  /** Tokens at the start of `ids` already in the cache, in whole blocks (at most `ids.length − 1`). */
  lookup(ids: readonly number[]): number {
    let best = 0;
    forEachBlockHash(ids, (end, key) => {
      if (!this.seen.has(key)) return false;
      best = end;
      return true;
    });
    return Math.min(best, Math.max(0, ids.length - 1));
  }

  insert(ids: readonly number[]): void {
    forEachBlockHash(ids, (_end, key) => {
      // A lookup does not refresh a block; inserting one again does (lru-cache's has/set rule).
      if (this.seen.delete(key) || this.seen.size < this.maxBlocks) this.seen.set(key, true);
      else {
        this.seen.delete(this.seen.keys().next().value!);
        this.seen.set(key, true);
      }
      return true;
    });
  }

  clear(): void {
    this.seen.clear();
  }
}

/** Calls `fn(end, key)` for each block-aligned prefix; stops when `fn` returns false. */
function forEachBlockHash(ids: readonly number[], fn: (end: number, key: number) => boolean): void {
  let h1 = 0x811c9dc5;
  let h2 = 0x2545f491;
  for (let i = 0; i < ids.length; i++) {
    h1 = Math.imul(h1 ^ ids[i]!, 0x01000193);
    h2 = Math.imul(h2 ^ ids[i]!, 0x5bd1e995) ^ (h2 >>> 13);
    if ((i + 1) % BLOCK === 0) {
      // 53-bit key from two independent 32-bit hashes keeps collisions negligible.
      const key = (h1 >>> 0) * 0x200000 + ((h2 >>> 0) & 0x1fffff);
      if (!fn(i + 1, key)) return;
    }
  }
}
