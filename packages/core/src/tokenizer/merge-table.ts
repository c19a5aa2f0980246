/**
 * BPE merges: (left id, right id) → rank and merged id, in an open-addressing hash table over
 * typed arrays. The merge lookup is the inner loop of every encode; a Map keyed by
 * left·2^20 + right holds keys past 2^31, which V8 stores and hashes as doubles — this table
 * builds about 3× and answers about 3× faster. The compiled-tokenizer cache stores the table's
 * own arrays, so a cached tokenizer looks merges up in the file's bytes without rebuilding it.
 *
 * Two arrays, sized for what a start-up pays: the file is read in whole, each page of it costs
 * a fault (~12.7 µs on the machines measured) and again its first touch from JavaScript, and the
 * first render's lookups land on nearly every page of the table. `slots` holds per hash slot
 * the pair's rank and a fingerprint of the pair (4 bytes); `rules` per rank the pair and its
 * merged id, packed in 8 bytes. A lookup reads one slot and, when the fingerprint matches, one
 * rule. Qwen3 (151k merges): 1 MB + 1.2 MB, where three slot arrays of left, right and
 * rank/merged took 4 MB.
 */

/** `packed` values: rank * PAIR_SHIFT + merged id (ids < 2^20 for every vocabulary we load). */
export const PAIR_SHIFT = 1048576;

/** Ids and ranks have 20 bits (below PAIR_SHIFT). */
const ID_BITS = 20;
const ID_MASK = PAIR_SHIFT - 1;
/** A slot is fingerprint << ID_BITS | rank, or -1 where empty: 11 fingerprint bits keep it positive. */
const FP_MASK = 0x7ff;

/**
 * Most merges per slot; linear probing at under 0.7 finds a pair in about 2 probes, and the
 * fingerprint rejects nearly every other pair's slot without reading its rule.
 */
const MAX_LOAD = 0.7;

/**
 * The table's arrays, read from and written to the tokenizer cache. `rules[2r]` is the left id
 * of rank r with the merged id's low 12 bits above it, `rules[2r + 1]` the right id with the
 * merged id's high bits (ranks that merge nothing are 0).
 */
export interface MergeTableArrays {
  slots: Int32Array;
  rules: Int32Array;
  count: number;
}

export class MergeTable {
  private readonly slots: Int32Array;
  private readonly rules: Int32Array;
  private readonly shift: number;
  private readonly mask: number;
  private count = 0;

  /** An empty table for ranks below `capacity`, or (`arrays`) the stored arrays of one. */
  constructor(capacity: number, arrays?: MergeTableArrays) {
    const slots = arrays
      ? arrays.slots.length
      : 2 ** Math.max(4, Math.ceil(Math.log2(Math.max(1, capacity) / MAX_LOAD)));
    const bits = Math.log2(slots);
    if (arrays) {
      if (!Number.isInteger(bits) || bits > 32 - 11 || arrays.rules.length % 2 !== 0)
        throw new Error("MergeTable: stored arrays are not a power-of-two slot table and rule pairs");
      this.slots = arrays.slots;
      this.rules = arrays.rules;
      this.count = arrays.count;
    } else {
      if (capacity > PAIR_SHIFT) throw new Error(`MergeTable: ${capacity} merges, at most ${PAIR_SHIFT}`);
      this.slots = new Int32Array(slots).fill(-1);
      this.rules = new Int32Array(2 * capacity);
    }
    this.shift = 32 - bits;
    this.mask = slots - 1;
  }

  /** A table over stored arrays (`arrays()` of another table). */
  static fromArrays(arrays: MergeTableArrays): MergeTable {
    return new MergeTable(arrays.count, arrays);
  }

  get size(): number {
    return this.count;
  }

  private hash(a: number, b: number): number {
    return (Math.imul(a, 0x9e3779b1) ^ Math.imul(b, 0x85ebca77)) >>> 0;
  }

  /** Adds a merge unless the pair has one already (the first, lowest-ranked, wins, as in HF). */
  add(a: number, b: number, rank: number, merged: number): void {
    if (this.count + 1 > MAX_LOAD * this.slots.length)
      throw new Error("MergeTable: more merges than its capacity");
    if (2 * rank >= this.rules.length) throw new Error(`MergeTable: rank ${rank} past the table's capacity`);
    if (this.get(a, b) >= 0) return;
    const hash = this.hash(a, b);
    let h = hash >>> this.shift;
    while (this.slots[h] !== -1) h = (h + 1) & this.mask;
    this.slots[h] = ((hash & FP_MASK) << ID_BITS) | rank;
    this.rules[2 * rank] = a | ((merged & 0xfff) << ID_BITS);
    this.rules[2 * rank + 1] = b | ((merged >>> 12) << ID_BITS);
    this.count++;
  }

  /** rank * PAIR_SHIFT + merged id of the pair, or -1 when the pair does not merge. */
  get(a: number, b: number): number {
    const hash = this.hash(a, b);
    const fp = hash & FP_MASK;
    const slots = this.slots;
    for (let h = hash >>> this.shift; ; h = (h + 1) & this.mask) {
      const v = slots[h]!;
      if (v === -1) return -1;
      if (v >>> ID_BITS !== fp) continue;
      const rank = v & ID_MASK;
      const left = this.rules[2 * rank]!;
      const right = this.rules[2 * rank + 1]!;
      if ((left & ID_MASK) === a && (right & ID_MASK) === b)
        return rank * PAIR_SHIFT + ((left >>> ID_BITS) | ((right >>> ID_BITS) << 12));
    }
  }

  /** The arrays as they are (not copies), for the tokenizer cache. */
  arrays(): MergeTableArrays {
    return { slots: this.slots, rules: this.rules, count: this.count };
  }
}
