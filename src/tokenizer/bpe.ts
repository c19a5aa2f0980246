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
  private readonly merges = new Map<number, number>();
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
    if (this.cache.size >= BytePairModel.CACHE_LIMIT) this.cache.clear();
    this.cache.set(piece, ids);
    return ids;
  }

  /** Repeatedly merges the lowest-ranked adjacent pair (leftmost on ties), as HF's BPE does. */
  private mergeAll(syms: number[]): number[] {
    while (syms.length > 1) {
      let bestRank = Number.POSITIVE_INFINITY;
      let bestPos = -1;
      let bestId = -1;
      for (let i = 0; i < syms.length - 1; i++) {
        const packed = this.merges.get(syms[i] * PAIR_SHIFT + syms[i + 1]);
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
}

function splitMergeString(merge: string): [string, string] {
  const at = merge.indexOf(" ", 1);
  return [merge.slice(0, at), merge.slice(at + 1)];
}
