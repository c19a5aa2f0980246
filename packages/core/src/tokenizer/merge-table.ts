/**
 * BPE merges: (left id, right id) → rank and merged id, in an open-addressing hash table over
 * typed arrays. The merge lookup is the inner loop of every encode; a Map keyed by
 * left·2^20 + right holds keys past 2^31, which V8 stores and hashes as doubles — this table
 * builds about 3× and answers about 3× faster, and its entries travel as one Int32Array
 * (the compiled tokenizer cache).
 */

/** `packed` values: rank * PAIR_SHIFT + merged id (ids < 2^20 for every vocabulary we load). */
export const PAIR_SHIFT = 1048576;

export class MergeTable {
  private readonly left: Int32Array;
  private readonly right: Int32Array;
  private readonly packed: Float64Array;
  private readonly shift: number;
  private readonly mask: number;
  /** Entries in insertion order, 4 ints each (left, right, rank, merged). */
  private readonly order: Int32Array;
  private count = 0;

  constructor(capacity: number) {
    const bits = Math.max(4, Math.ceil(Math.log2(Math.max(1, capacity) * 2)));
    const slots = 2 ** bits;
    this.left = new Int32Array(slots).fill(-1);
    this.right = new Int32Array(slots);
    this.packed = new Float64Array(slots);
    this.shift = 32 - bits;
    this.mask = slots - 1;
    this.order = new Int32Array(4 * capacity);
  }

  /** The table of `entries()` output, in the same order. */
  static fromEntries(entries: Int32Array): MergeTable {
    const table = new MergeTable(entries.length / 4);
    for (let i = 0; i < entries.length; i += 4)
      table.add(entries[i]!, entries[i + 1]!, entries[i + 2]!, entries[i + 3]!);
    return table;
  }

  get size(): number {
    return this.count;
  }

  private slot(a: number, b: number): number {
    return (Math.imul(a, 0x9e3779b1) ^ Math.imul(b, 0x85ebca77)) >>> this.shift;
  }

  /** Adds a merge unless the pair has one already (the first, lowest-ranked, wins, as in HF). */
  add(a: number, b: number, rank: number, merged: number): void {
    if (this.count * 4 >= this.order.length) throw new Error("MergeTable: more merges than its capacity");
    let h = this.slot(a, b);
    for (; this.left[h] !== -1; h = (h + 1) & this.mask)
      if (this.left[h] === a && this.right[h] === b) return;
    this.left[h] = a;
    this.right[h] = b;
    this.packed[h] = rank * PAIR_SHIFT + merged;
    const at = 4 * this.count++;
    this.order[at] = a;
    this.order[at + 1] = b;
    this.order[at + 2] = rank;
    this.order[at + 3] = merged;
  }

  /** rank * PAIR_SHIFT + merged id of the pair, or -1 when the pair does not merge. */
  get(a: number, b: number): number {
    for (let h = this.slot(a, b); this.left[h] !== -1; h = (h + 1) & this.mask)
      if (this.left[h] === a && this.right[h] === b) return this.packed[h]!;
    return -1;
  }

  /** Every merge as (left, right, rank, merged), in insertion order. */
  entries(): Int32Array {
    return this.order.subarray(0, 4 * this.count);
  }
}
