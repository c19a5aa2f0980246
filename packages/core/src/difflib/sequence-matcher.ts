/**
 * Ratcliff/Obershelp sequence matching, behaviourally identical to CPython's
 * `difflib.SequenceMatcher(isjunk=None, a, b, autojunk)`.
 *
 * Why a port and not an npm package: reverse-text's reward is `SequenceMatcher(...).ratio()`, and
 * RL rewards must match the Python reference to the last bit. The result depends on details that
 * are easy to get subtly wrong — the order in which candidate matches are scanned (ties go to the
 * earliest i, then the earliest j), the "popular element" heuristic for long `b`, the extension of
 * a match over popular elements after the core search, and the merge of adjacent blocks — so each
 * of those steps is reproduced here on purpose.
 *
 * Elements are compared with `===`; string helpers (see ratio.ts) split text into Unicode code
 * points, because Python indexes `str` by code point while JS strings are UTF-16.
 */

/** A matching block `[i, j, size]`: `a[i..i+size) == b[j..j+size)`. */
export type MatchingBlock = [i: number, j: number, size: number];

export interface SequenceMatcherOptions {
  /**
   * Treat elements that occur in more than `len(b) // 100 + 1` positions of `b` as junk when
   * `len(b) >= 200` (CPython's default). Default true.
   */
  autojunk?: boolean;
}

export class SequenceMatcher<T> {
  readonly a: readonly T[];
  readonly b: readonly T[];
  /** For each non-popular element of b, the ascending positions where it occurs. */
  private readonly b2j: Map<T, number[]>;
  /** Elements of b dropped from b2j by the autojunk heuristic. */
  readonly popular: ReadonlySet<T>;
  private blocks: MatchingBlock[] | null = null;

  constructor(a: readonly T[], b: readonly T[], options: SequenceMatcherOptions = {}) {
    this.a = a;
    this.b = b;
    const b2j = new Map<T, number[]>();
    b.forEach((elt, j) => {
      const list = b2j.get(elt);
      if (list) list.push(j);
      else b2j.set(elt, [j]);
    });
    const popular = new Set<T>();
    const n = b.length;
    if ((options.autojunk ?? true) && n >= 200) {
      // Strictly more than n//100 + 1 occurrences makes an element popular.
      const ntest = Math.floor(n / 100) + 1;
      for (const [elt, idxs] of b2j) if (idxs.length > ntest) popular.add(elt);
      for (const elt of popular) b2j.delete(elt);
    }
    this.b2j = b2j;
    this.popular = popular;
  }

  /**
   * Longest block with `alo <= i < ahi`, `blo <= j < bhi`, found among non-popular elements and
   * then widened over equal neighbours. With `isjunk=None` the junk set is empty, so popular
   * elements count as "not junk" in the widening step — which is why a match can grow over them
   * even though they could never seed one.
   */
  findLongestMatch(alo: number, ahi: number, blo: number, bhi: number): MatchingBlock {
    const { a, b } = this;
    const b2j = this.b2j;
    let besti = alo;
    let bestj = blo;
    let bestsize = 0;
    // j2len[j] = length of the longest match ending at a[i-1], b[j].
    let j2len = new Map<number, number>();
    for (let i = alo; i < ahi; i++) {
      const newj2len = new Map<number, number>();
      const positions = b2j.get(a[i]!);
      if (positions) {
        for (const j of positions) {
          if (j < blo) continue;
          if (j >= bhi) break;
          const k = (j2len.get(j - 1) ?? 0) + 1;
          newj2len.set(j, k);
          if (k > bestsize) {
            besti = i - k + 1;
            bestj = j - k + 1;
            bestsize = k;
          }
        }
      }
      j2len = newj2len;
    }
    // Widen over equal elements on both sides (the junk set is empty, so every element qualifies;
    // the second, junk-only widening pass of CPython is a no-op without an isjunk function).
    while (besti > alo && bestj > blo && a[besti - 1] === b[bestj - 1]) {
      besti--;
      bestj--;
      bestsize++;
    }
    while (besti + bestsize < ahi && bestj + bestsize < bhi && a[besti + bestsize] === b[bestj + bestsize]) {
      bestsize++;
    }
    return [besti, bestj, bestsize];
  }

  /**
   * All matching blocks, sorted, adjacent blocks merged, ending with the sentinel
   * `[len(a), len(b), 0]`. The work list is a LIFO stack like CPython's, although the final sort
   * makes the processing order irrelevant to the result.
   */
  getMatchingBlocks(): MatchingBlock[] {
    if (this.blocks) return this.blocks.map((m) => [...m] as MatchingBlock);
    const la = this.a.length;
    const lb = this.b.length;
    const stack: [number, number, number, number][] = [[0, la, 0, lb]];
    const found: MatchingBlock[] = [];
    while (stack.length > 0) {
      const [alo, ahi, blo, bhi] = stack.pop()!;
      const m = this.findLongestMatch(alo, ahi, blo, bhi);
      const [i, j, k] = m;
      if (k > 0) {
        found.push(m);
        if (alo < i && blo < j) stack.push([alo, i, blo, j]);
        if (i + k < ahi && j + k < bhi) stack.push([i + k, ahi, j + k, bhi]);
      }
    }
    found.sort((x, y) => x[0] - y[0] || x[1] - y[1] || x[2] - y[2]);
    const merged: MatchingBlock[] = [];
    let [i1, j1, k1] = [0, 0, 0];
    for (const [i2, j2, k2] of found) {
      if (i1 + k1 === i2 && j1 + k1 === j2) {
        k1 += k2;
      } else {
        if (k1 > 0) merged.push([i1, j1, k1]);
        [i1, j1, k1] = [i2, j2, k2];
      }
    }
    if (k1 > 0) merged.push([i1, j1, k1]);
    merged.push([la, lb, 0]);
    this.blocks = merged;
    return merged.map((m) => [...m] as MatchingBlock);
  }

  /** 2·M / T, where M is the total size of the matching blocks; 1.0 when both are empty. */
  ratio(): number {
    let matches = 0;
    for (const [, , size] of this.getMatchingBlocks()) matches += size;
    return calculateRatio(matches, this.a.length + this.b.length);
  }

  /** Upper bound on ratio(): the multiset intersection of a and b. */
  quickRatio(): number {
    const fullbcount = new Map<T, number>();
    for (const elt of this.b) fullbcount.set(elt, (fullbcount.get(elt) ?? 0) + 1);
    const avail = new Map<T, number>();
    let matches = 0;
    for (const elt of this.a) {
      const numb = avail.has(elt) ? avail.get(elt)! : (fullbcount.get(elt) ?? 0);
      avail.set(elt, numb - 1);
      if (numb > 0) matches++;
    }
    return calculateRatio(matches, this.a.length + this.b.length);
  }

  /** A cheaper upper bound: only the lengths. */
  realQuickRatio(): number {
    const la = this.a.length;
    const lb = this.b.length;
    return calculateRatio(Math.min(la, lb), la + lb);
  }
}

function calculateRatio(matches: number, length: number): number {
  return length > 0 ? (2.0 * matches) / length : 1.0;
}
