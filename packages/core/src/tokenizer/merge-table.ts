/**
 * BPE merges: (left id, right id) → rank and merged id, in an open-addressing hash table over
 * typed arrays. The merge lookup is the inner loop of every encode; a Map keyed by
 * left·2^20 + right holds keys past 2^31, which V8 stores and hashes as doubles — this table
 * builds about 3× and answers about 3× faster. The compiled-tokenizer cache stores the table's
 * own arrays, so a cached tokenizer looks merges up in the file's bytes without rebuilding it.
 */

/** `packed` values: rank * PAIR_SHIFT + merged id (ids < 2^20 for every vocabulary we load). */
export const PAIR_SHIFT = 1048576;

/**
 * Most merges per slot. The tokenizer cache stores the slots and a start-up reads them all, so
 * their size is start-up time (Qwen3's 151k merges: 262,144 slots, 4 MB, instead of 8 MB at a
 * load of at most 1/2); linear probing at under 0.7 still finds a pair in about 2 probes.
 */
const MAX_LOAD = 0.7;

/** The table's slots: `left` -1 where empty; read from and written to the tokenizer cache. */
export interface MergeTableArrays {
  left: Int32Array;
  right: Int32Array;
  packed: Float64Array;
  count: number;
}

export class MergeTable {
  private readonly left: Int32Array;
  private readonly right: Int32Array;
  private readonly packed: Float64Array;
  private readonly shift: number;
  private readonly mask: number;
  private count = 0;

  /** An empty table for up to `capacity` merges, or (`arrays`) the stored slots of one. */
  constructor(capacity: number, arrays?: MergeTableArrays) {
    const slots = arrays
      ? arrays.left.length
      : 2 ** Math.max(4, Math.ceil(Math.log2(Math.max(1, capacity) / MAX_LOAD)));
    const bits = Math.log2(slots);
    if (arrays) {
      if (!Number.isInteger(bits) || arrays.right.length !== slots || arrays.packed.length !== slots)
        throw new Error("MergeTable: stored slots are not three arrays of one power-of-two length");
      this.left = arrays.left;
      this.right = arrays.right;
      this.packed = arrays.packed;
      this.count = arrays.count;
    } else {
      this.left = new Int32Array(slots).fill(-1);
      this.right = new Int32Array(slots);
      this.packed = new Float64Array(slots);
    }
    this.shift = 32 - bits;
    this.mask = slots - 1;
  }

  /** A table over stored slots (`arrays()` of another table). */
  static fromArrays(arrays: MergeTableArrays): MergeTable {
    return new MergeTable(arrays.count, arrays);
  }

  get size(): number {
    return this.count;
  }

  private slot(a: number, b: number): number {
    return (Math.imul(a, 0x9e3779b1) ^ Math.imul(b, 0x85ebca77)) >>> this.shift;
  }

  /** Adds a merge unless the pair has one already (the first, lowest-ranked, wins, as in HF). */
  add(a: number, b: number, rank: number, merged: number): void {
    if (this.count + 1 > MAX_LOAD * this.left.length)
      throw new Error("MergeTable: more merges than its capacity");
    let h = this.slot(a, b);
    for (; this.left[h] !== -1; h = (h + 1) & this.mask)
      if (this.left[h] === a && this.right[h] === b) return;
    this.left[h] = a;
    this.right[h] = b;
    this.packed[h] = rank * PAIR_SHIFT + merged;
    this.count++;
  }

  /** rank * PAIR_SHIFT + merged id of the pair, or -1 when the pair does not merge. */
  get(a: number, b: number): number {
    for (let h = this.slot(a, b); this.left[h] !== -1; h = (h + 1) & this.mask)
      if (this.left[h] === a && this.right[h] === b) return this.packed[h]!;
    return -1;
  }

  /** The slots as they are (not copies), for the tokenizer cache. */
  arrays(): MergeTableArrays {
    return { left: this.left, right: this.right, packed: this.packed, count: this.count };
  }
}
