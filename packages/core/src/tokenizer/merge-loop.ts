/**
 * The BPE merge loop: merges the lowest-ranked adjacent pair (leftmost on ties) until none is
 * left, as HF's BPE does, with symbols as vocabulary ids and ranks from the merge table.
 */
import { type MergeTable, PAIR_SHIFT } from "./merge-table.ts";

/** Pieces longer than this (in bytes) are merged with the heap. */
const HEAP_MERGE_MIN = 64;

/**
 * Short pieces (nearly all) take a plain rescan; long ones the heap, because rescanning is
 * quadratic in the piece length, and a 32k-character run of letters or punctuation (a DNA
 * string, a `=====` rule in a tool result) would block the event loop for seconds. Both give the
 * same merges. Modifies `syms` (the rescan returns it).
 */
export function mergeAll(syms: number[], merges: MergeTable): number[] {
  return syms.length > HEAP_MERGE_MIN ? mergeByHeap(syms, merges) : mergeByScan(syms, merges);
}

/** Heap key: rank * POS_SHIFT + left position; ranks < 2^21, so keys stay exact below 2^53. */
const POS_SHIFT = 2 ** 31;

/**
 * Each adjacent pair's packed merge (rank * PAIR_SHIFT + merged id, -1: none) for
 * `mergeByScan`; pieces it takes have at most HEAP_MERGE_MIN symbols.
 */
const scanPairs = new Float64Array(HEAP_MERGE_MIN);

/**
 * The rescanning merge loop: O(n²) compares, fastest for short pieces. Modifies and returns
 * `syms`. Each pair's merge is looked up once and again only when a merge next to it changes
 * it (n - 1 + 2 per merge lookups, not n - 1 per merge): an eval's first render runs this
 * loop cold, where each lookup is an interpreted call, and a rescan of every pair after each
 * merge made ~2,000 lookups for a 130-token prompt. A packed value orders as its rank (one
 * merged id per rank), so the lowest one, leftmost on ties, is HF's next merge.
 */
export function mergeByScan(syms: number[], merges: MergeTable): number[] {
  let pairs = syms.length - 1;
  if (pairs < 1) return syms;
  const packed = pairs <= scanPairs.length ? scanPairs : new Float64Array(pairs);
  for (let i = 0; i < pairs; i++) packed[i] = merges.get(syms[i]!, syms[i + 1]!);
  for (;;) {
    let best = -1;
    let bestPacked = Number.POSITIVE_INFINITY;
    for (let i = 0; i < pairs; i++) {
      const p = packed[i]!;
      if (p >= 0 && p < bestPacked) {
        bestPacked = p;
        best = i;
      }
    }
    if (best < 0) break;
    const merged = bestPacked % PAIR_SHIFT;
    syms.splice(best, 2, merged);
    pairs--;
    // The pair right of the merge moves one left; the two pairs touching the new symbol change.
    packed.copyWithin(best, best + 1, pairs + 1);
    if (best > 0) packed[best - 1] = merges.get(syms[best - 1]!, merged);
    if (best < pairs) packed[best] = merges.get(merged, syms[best + 1]!);
  }
  return syms;
}

/**
 * HF's `Word::merge_all`: a min-heap of candidate merges keyed by (rank, left position) over a
 * linked list of symbols; an entry whose pair has changed since it was pushed is skipped.
 * O(n log n). Positions are original indices, so "smallest position" is "leftmost".
 */
export function mergeByHeap(syms: readonly number[], merges: MergeTable): number[] {
  const n = syms.length;
  const sym = Int32Array.from(syms);
  const next = new Int32Array(n);
  const prev = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    prev[i] = i - 1;
    next[i] = i + 1 < n ? i + 1 : -1;
  }
  // n - 1 initial candidates and at most two per merge (n - 1 merges): 3n slots always suffice,
  // so the heap is one preallocated typed array (a growing number[] was the loop's main cost).
  const heap = new Float64Array(3 * n);
  let size = 0;
  for (let i = 0; i < n - 1; i++) {
    const packed = merges.get(sym[i]!, sym[i + 1]!);
    if (packed >= 0) size = heapPush(heap, size, Math.floor(packed / PAIR_SHIFT) * POS_SHIFT + i);
  }
  while (size > 0) {
    const key = heap[0]!;
    size = heapPop(heap, size);
    const rank = Math.floor(key / POS_SHIFT);
    const i = key - rank * POS_SHIFT;
    const j = next[i]!;
    if (sym[i]! < 0 || j < 0) continue;
    const packed = merges.get(sym[i]!, sym[j]!);
    // Each pair has exactly one rank, so an equal rank means the pair is still the pushed one.
    if (packed < 0 || Math.floor(packed / PAIR_SHIFT) !== rank) continue;
    sym[i] = packed - rank * PAIR_SHIFT;
    sym[j] = -1;
    const k = next[j]!;
    next[i] = k;
    if (k >= 0) prev[k] = i;
    const h = prev[i]!;
    if (h >= 0) {
      const left = merges.get(sym[h]!, sym[i]!);
      if (left >= 0) size = heapPush(heap, size, Math.floor(left / PAIR_SHIFT) * POS_SHIFT + h);
    }
    if (k >= 0) {
      const right = merges.get(sym[i]!, sym[k]!);
      if (right >= 0) size = heapPush(heap, size, Math.floor(right / PAIR_SHIFT) * POS_SHIFT + i);
    }
  }
  // Position 0 is never merged away (only right-hand symbols are), so the list starts there.
  const out: number[] = [];
  for (let i = n > 0 ? 0 : -1; i >= 0; i = next[i]!) out.push(sym[i]!);
  return out;
}

/** Pushes `key` onto the heap of `size` entries; returns the new size. */
function heapPush(heap: Float64Array, size: number, key: number): number {
  let i = size;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (heap[parent]! <= key) break;
    heap[i] = heap[parent]!;
    i = parent;
  }
  heap[i] = key;
  return size + 1;
}

/** Removes the smallest key (read `heap[0]` first); returns the new size. */
function heapPop(heap: Float64Array, size: number): number {
  const n = size - 1;
  const last = heap[n]!;
  if (n > 0) {
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && heap[r]! < heap[l]! ? r : l;
      if (heap[c]! >= last) break;
      heap[i] = heap[c]!;
      i = c;
    }
    heap[i] = last;
  }
  return n;
}
