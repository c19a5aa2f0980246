/**
 * Byte-level BPE model: vocabulary, merge ranks and the merge loop, with a per-piece cache.
 *
 * Symbols are kept as vocabulary ids throughout (every byte and every merge result of a
 * byte-level vocabulary is itself a vocabulary entry), so a merge lookup is one numeric Map
 * probe instead of string concatenation.
 */
import { BYTE_TO_CHAR } from "./byte-level.ts";

/** Pair key: ids are < 2^18 for every vocabulary we load, so the product stays exact. */
const PAIR_SHIFT = 262144;

export interface BpeModelJson {
  vocab: Record<string, number>;
  merges: (string | [string, string])[];
}

export class BytePairModel {
  readonly vocab: Map<string, number>;
  readonly idToToken: string[];
  /** pair key → rank * PAIR_SHIFT + merged id. */
  readonly merges = new Map<number, number>();
  private readonly byteIds: Int32Array;
  private readonly cache = new Map<string, number[]>();
  private static readonly CACHE_LIMIT = 200_000;

  constructor(model: BpeModelJson) {
    this.vocab = new Map(Object.entries(model.vocab));
    this.idToToken = [];
    for (const [tok, id] of this.vocab) this.idToToken[id] = tok;
    if (this.idToToken.length >= PAIR_SHIFT) throw new Error("BPE vocabulary too large for pair keys");
    model.merges.forEach((merge, rank) => {
      const [a, b] = typeof merge === "string" ? splitMergeString(merge) : merge;
      const ia = this.vocab.get(a);
      const ib = this.vocab.get(b);
      const merged = this.vocab.get(a + b);
      if (ia === undefined || ib === undefined || merged === undefined) return;
      const key = ia * PAIR_SHIFT + ib;
      if (!this.merges.has(key)) this.merges.set(key, rank * PAIR_SHIFT + merged);
    });
    this.byteIds = new Int32Array(256);
    for (let b = 0; b < 256; b++) {
      const id = this.vocab.get(BYTE_TO_CHAR[b]);
      if (id === undefined) throw new Error(`byte-level vocabulary lacks byte ${b}`);
      this.byteIds[b] = id;
    }
  }

  /** Token ids of one pre-token (already normalized text). Results are cached and must not be mutated. */
  encodePiece(piece: string): number[] {
    const hit = this.cache.get(piece);
    if (hit !== undefined) return hit;
    const bytes = Buffer.from(piece, "utf8");
    const syms: number[] = new Array(bytes.length);
    for (let i = 0; i < bytes.length; i++) syms[i] = this.byteIds[bytes[i]];
    const ids = this.mergeAll(syms);
    // Like HF (`MAX_LENGTH`), only short pieces are cached: a long one rarely repeats, and the
    // count-bounded cache would otherwise hold arbitrarily large keys.
    if (piece.length >= CACHE_PIECE_MAX) return ids;
    if (this.cache.size >= BytePairModel.CACHE_LIMIT) this.cache.clear();
    this.cache.set(piece, ids);
    return ids;
  }

  /**
   * Merges the lowest-ranked adjacent pair (leftmost on ties) until none is left, as HF's BPE
   * does. Short pieces (nearly all) take a plain rescan; long ones the heap, because rescanning
   * is quadratic: a 32k-character run of letters or punctuation (a DNA string, a `=====` rule
   * in a tool result) took 4.5 s with the event loop blocked. Both give the same merges.
   */
  private mergeAll(syms: number[]): number[] {
    return syms.length > HEAP_MERGE_MIN ? mergeByHeap(syms, this.merges) : mergeByScan(syms, this.merges);
  }
}

/** Pieces this long (UTF-16 units) or longer are not cached. */
const CACHE_PIECE_MAX = 256;
/** Pieces longer than this (in bytes) are merged with the heap. */
const HEAP_MERGE_MIN = 64;
/** Heap key: rank * POS_SHIFT + left position; ranks < 2^18, so keys stay exact below 2^53. */
const POS_SHIFT = 2 ** 31;

/** The rescanning merge loop: O(n²), fastest for short pieces. Modifies and returns `syms`. */
export function mergeByScan(syms: number[], merges: ReadonlyMap<number, number>): number[] {
  while (syms.length > 1) {
    let bestRank = Number.POSITIVE_INFINITY;
    let bestPos = -1;
    let bestId = -1;
    for (let i = 0; i < syms.length - 1; i++) {
      const packed = merges.get(syms[i] * PAIR_SHIFT + syms[i + 1]);
      if (packed === undefined) continue;
      const rank = Math.floor(packed / PAIR_SHIFT);
      if (rank < bestRank) {
        bestRank = rank;
        bestPos = i;
        bestId = packed - rank * PAIR_SHIFT;
      }
    }
    if (bestPos < 0) break;
    syms.splice(bestPos, 2, bestId);
  }
  return syms;
}

/**
 * HF's `Word::merge_all`: a min-heap of candidate merges keyed by (rank, left position) over a
 * linked list of symbols; an entry whose pair has changed since it was pushed is skipped.
 * O(n log n). Positions are original indices, so "smallest position" is "leftmost".
 */
export function mergeByHeap(syms: readonly number[], merges: ReadonlyMap<number, number>): number[] {
  const n = syms.length;
  const sym = Int32Array.from(syms);
  const next = new Int32Array(n);
  const prev = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    prev[i] = i - 1;
    next[i] = i + 1 < n ? i + 1 : -1;
  }
  const heap: number[] = [];
  const candidate = (i: number): void => {
    const j = next[i];
    if (j < 0) return;
    const packed = merges.get(sym[i] * PAIR_SHIFT + sym[j]);
    if (packed !== undefined) heapPush(heap, Math.floor(packed / PAIR_SHIFT) * POS_SHIFT + i);
  };
  for (let i = 0; i < n - 1; i++) candidate(i);
  while (heap.length > 0) {
    const key = heapPop(heap);
    const rank = Math.floor(key / POS_SHIFT);
    const i = key - rank * POS_SHIFT;
    const j = next[i];
    if (sym[i] < 0 || j < 0) continue;
    const packed = merges.get(sym[i] * PAIR_SHIFT + sym[j]);
    // Each pair has exactly one rank, so an equal rank means the pair is still the pushed one.
    if (packed === undefined || Math.floor(packed / PAIR_SHIFT) !== rank) continue;
    sym[i] = packed - rank * PAIR_SHIFT;
    sym[j] = -1;
    const k = next[j];
    next[i] = k;
    if (k >= 0) prev[k] = i;
    if (prev[i] >= 0) candidate(prev[i]);
    candidate(i);
  }
  // Position 0 is never merged away (only right-hand symbols are), so the list starts there.
  const out: number[] = [];
  for (let i = n > 0 ? 0 : -1; i >= 0; i = next[i]) out.push(sym[i]);
  return out;
}

function heapPush(heap: number[], key: number): void {
  let i = heap.length;
  heap.push(key);
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (heap[parent] <= key) break;
    heap[i] = heap[parent];
    i = parent;
  }
  heap[i] = key;
}

function heapPop(heap: number[]): number {
  const top = heap[0];
  const last = heap.pop() as number;
  const n = heap.length;
  if (n > 0) {
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && heap[r] < heap[l] ? r : l;
      if (heap[c] >= last) break;
      heap[i] = heap[c];
      i = c;
    }
    heap[i] = last;
  }
  return top;
}

function splitMergeString(merge: string): [string, string] {
  const at = merge.indexOf(" ", 1);
  return [merge.slice(0, at), merge.slice(at + 1)];
}
