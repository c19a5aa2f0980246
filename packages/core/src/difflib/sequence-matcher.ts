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
 * The matcher works on dense integer symbols (equal elements, equal symbols): `b2j` is a table of
 * ascending positions per symbol and CPython's per-row `j2len` dicts are two typed rows tagged with
 * the row that wrote them, so a rollout's reward allocates a few arrays instead of a Map per row.
 * The generic `SequenceMatcher<T>` interns its elements (SameValueZero, as a Map keys them);
 * string helpers (see ratio.ts) intern Unicode code points, because Python indexes `str` by code
 * point while JS strings are UTF-16.
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

/**
 * CPython's per-row `j2len` dicts, as one row shared by every matcher (a match search is
 * synchronous): `j2len[j]` is `rowLen[j]` when `rowTag[j]` is the previous row's number, else 0.
 * Row numbers only grow, so nothing is ever cleared.
 */
let rowLen = new Int32Array(256);
let rowTag = new Int32Array(256);
let rowNumber = 0;

function rowsFor(n: number): void {
  if (rowLen.length < n) {
    const size = Math.max(n, rowLen.length * 2);
    rowLen = new Int32Array(size);
    rowTag = new Int32Array(size);
    rowNumber = 0;
  } else if (rowNumber > 0x3fff0000) {
    rowTag.fill(0);
    rowNumber = 0;
  }
}

/** `ratio`'s work list of `[alo, ahi, blo, bhi]` ranges, flat and shared (a ratio is synchronous). */
const rangeStack: number[] = [];

/** The matcher over symbols `0 … symbols-1`; `a` and `b` are not copied. */
export class SymbolMatcher {
  /**
   * `b2j` as one table: `table[s] … table[s+1]` delimit symbol s's ascending positions in b,
   * stored from `table[symbols + 1]` on.
   */
  private readonly table: Int32Array;
  private readonly symbols: number;
  /** Symbols with more occurrences than this are popular (autojunk): absent from `b2j`. */
  private readonly junkAbove: number;
  private blocks: MatchingBlock[] | null = null;

  /**
   * `table`: storage for `b2j` (at least `symbols + 1 + b.length` entries, the first
   * `symbols + 1` zero) when the caller lends it for a matcher it drops before the next use.
   */
  constructor(
    readonly a: Int32Array,
    readonly b: Int32Array,
    symbols: number,
    autojunk: boolean,
    table = new Int32Array(symbols + 1 + b.length),
  ) {
    const n = b.length;
    for (let j = 0; j < n; j++) table[b[j]! + 1]!++;
    for (let s = 0; s < symbols; s++) table[s + 1] = table[s + 1]! + table[s]!;
    // table[s + 1] is now where symbol s's slots end; filling them back to front (j descending)
    // moves it to where they start, which is then shifted down to table[s].
    const base = symbols + 1;
    for (let j = n - 1; j >= 0; j--) table[base + --table[b[j]! + 1]!] = j;
    for (let s = 0; s < symbols; s++) table[s] = table[s + 1]!;
    table[symbols] = n;
    this.table = table;
    this.symbols = symbols;
    // Strictly more than n//100 + 1 occurrences makes an element popular.
    this.junkAbove = autojunk && n >= 200 ? Math.floor(n / 100) + 1 : n;
  }

  /** Whether autojunk dropped symbol s from `b2j`. */
  isPopular(s: number): boolean {
    return s < this.symbols && this.table[s + 1]! - this.table[s]! > this.junkAbove;
  }

  /**
   * Longest block with `alo <= i < ahi`, `blo <= j < bhi`, found among non-popular elements and
   * then widened over equal neighbours. With `isjunk=None` the junk set is empty, so popular
   * elements count as "not junk" in the widening step — which is why a match can grow over them
   * even though they could never seed one.
   */
  findLongestMatch(alo: number, ahi: number, blo: number, bhi: number): MatchingBlock {
    const { a, b, table, symbols, junkAbove } = this;
    const base = symbols + 1;
    let besti = alo;
    let bestj = blo;
    let bestsize = 0;
    rowsFor(b.length);
    const len = rowLen;
    const tag = rowTag;
    // A fresh search skips one row number, so no entry of an earlier search reads as its own.
    let row = ++rowNumber;
    for (let i = alo; i < ahi; i++) {
      row++;
      const s = a[i]!;
      if (s >= symbols) continue;
      const first = table[s]!;
      const last = table[s + 1]!;
      if (last - first > junkAbove) continue;
      // Positions descending, so j2len[j - 1] still holds the previous row when it is read and
      // one row serves both. CPython scans them ascending and keeps the first strictly longer
      // match: the same winner is the longest of the row at its smallest j, taken when it beats
      // every earlier row.
      let rowBest = 0;
      let rowJ = 0;
      // The first position at or past bhi (binary search), then down to blo: a sub-range search
      // visits only its own positions.
      let lo = base + first;
      let hi = base + last;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (table[mid]! < bhi) lo = mid + 1;
        else hi = mid;
      }
      for (let p = lo - 1; p >= base + first; p--) {
        const j = table[p]!;
        if (j < blo) break;
        const k = (j > 0 && tag[j - 1] === row - 1 ? len[j - 1]! : 0) + 1;
        len[j] = k;
        tag[j] = row;
        if (k >= rowBest) {
          rowBest = k;
          rowJ = j;
        }
      }
      if (rowBest > bestsize) {
        besti = i - rowBest + 1;
        bestj = rowJ - rowBest + 1;
        bestsize = rowBest;
      }
    }
    rowNumber = row;
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

  /**
   * 2·M / T, where M is the total size of the matching blocks; 1.0 when both are empty. M is
   * summed straight from the searches: sorting and merging adjacent blocks (what
   * `getMatchingBlocks` adds) never changes the total, so the reward needs no block list.
   */
  ratio(): number {
    if (this.blocks) {
      let total = 0;
      for (const [, , size] of this.blocks) total += size;
      return calculateRatio(total, this.a.length + this.b.length);
    }
    const stack = rangeStack;
    stack.length = 0;
    stack.push(0, this.a.length, 0, this.b.length);
    let matches = 0;
    while (stack.length > 0) {
      const bhi = stack.pop()!;
      const blo = stack.pop()!;
      const ahi = stack.pop()!;
      const alo = stack.pop()!;
      const [i, j, k] = this.findLongestMatch(alo, ahi, blo, bhi);
      if (k > 0) {
        matches += k;
        if (alo < i && blo < j) stack.push(alo, i, blo, j);
        if (i + k < ahi && j + k < bhi) stack.push(i + k, ahi, j + k, bhi);
      }
    }
    return calculateRatio(matches, this.a.length + this.b.length);
  }

  /** Upper bound on ratio(): the multiset intersection of a and b. */
  quickRatio(): number {
    const avail = new Int32Array(this.symbols);
    for (let s = 0; s < avail.length; s++) avail[s] = this.table[s + 1]! - this.table[s]!;
    let matches = 0;
    for (const s of this.a) {
      if (s < avail.length && avail[s]! > 0) {
        avail[s]!--;
        matches++;
      }
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

/** `SequenceMatcher(None, a, b, autojunk)` over any elements. */
export class SequenceMatcher<T> {
  readonly a: readonly T[];
  readonly b: readonly T[];
  /** Elements of b dropped from b2j by the autojunk heuristic. */
  readonly popular: ReadonlySet<T>;
  private readonly core: SymbolMatcher;

  constructor(a: readonly T[], b: readonly T[], options: SequenceMatcherOptions = {}) {
    this.a = a;
    this.b = b;
    // b's elements first, so that symbols `0 … |set(b)|-1` are exactly b's (a-only ones follow).
    const ids = new Map<T, number>();
    const bs = intern(b, ids);
    const symbols = ids.size;
    const as = intern(a, ids);
    this.core = new SymbolMatcher(as, bs, symbols, options.autojunk ?? true);
    const popular = new Set<T>();
    for (const [elt, s] of ids) if (this.core.isPopular(s)) popular.add(elt);
    this.popular = popular;
  }

  findLongestMatch(alo: number, ahi: number, blo: number, bhi: number): MatchingBlock {
    return this.core.findLongestMatch(alo, ahi, blo, bhi);
  }

  getMatchingBlocks(): MatchingBlock[] {
    return this.core.getMatchingBlocks();
  }

  ratio(): number {
    return this.core.ratio();
  }

  quickRatio(): number {
    return this.core.quickRatio();
  }

  realQuickRatio(): number {
    return this.core.realQuickRatio();
  }
}

function intern<T>(xs: readonly T[], ids: Map<T, number>): Int32Array {
  const out = new Int32Array(xs.length);
  for (let i = 0; i < xs.length; i++) {
    const x = xs[i]!;
    let s = ids.get(x);
    if (s === undefined) {
      s = ids.size;
      ids.set(x, s);
    }
    out[i] = s;
  }
  return out;
}

function calculateRatio(matches: number, length: number): number {
  return length > 0 ? (2.0 * matches) / length : 1.0;
}
