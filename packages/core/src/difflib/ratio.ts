/**
 * String entry points over code points — what Python's `SequenceMatcher(None, a, b)` sees when
 * given two `str`s. `Array.from` iterates a JS string by code point, so an emoji outside the BMP
 * is one element (as in Python) rather than two UTF-16 units.
 */
import {
  type MatchingBlock,
  SequenceMatcher,
  type SequenceMatcherOptions,
  SymbolMatcher,
} from "./sequence-matcher.ts";

export function codePoints(s: string): string[] {
  return Array.from(s);
}

export function stringMatcher(
  a: string,
  b: string,
  options: SequenceMatcherOptions = {},
): SequenceMatcher<string> {
  return new SequenceMatcher(codePoints(a), codePoints(b), options);
}

/** `difflib.SequenceMatcher(None, a, b, autojunk=…).ratio()`. */
export function sequenceMatcherRatio(a: string, b: string, options: SequenceMatcherOptions = {}): number {
  // Identical strings always match as one block, autojunk or not: the first search's winner is
  // the first row where the longest run of seeding (non-popular) elements ends, at its smallest
  // j; an earlier j would put the same run on the diagonal in an earlier row, so j = i, and the
  // widening (popular elements are not junk) then spans the whole diagonal. A correct reply is
  // the common case in RL, and this skips the matcher's index building for it.
  if (a === b) return 1;
  // No element can match when one side is empty: 0, or 1 for two empty strings.
  if (a === "" || b === "") return a === b ? 1 : 0;
  return codePointRatio(a, b, options);
}

/**
 * The ratio over code points, interned straight from the UTF-16 text (no per-character strings;
 * b's distinct code points get symbols first, as SequenceMatcher's interning does) into buffers
 * reused by every call: typed arrays of this size live outside the JS heap, and allocating three
 * per reward cost more than the match itself.
 */
let bufA = new Int32Array(1024);
let bufB = new Int32Array(1024);
let bufTable = new Int32Array(2049);

function codePointRatio(a: string, b: string, options: SequenceMatcherOptions): number {
  if (bufA.length < a.length) bufA = new Int32Array(a.length * 2);
  if (bufB.length < b.length) {
    bufB = new Int32Array(b.length * 2);
    bufTable = new Int32Array(b.length * 4 + 1);
  }
  // Made on the first reward: its two 256 KB tables are no part of a command's start-up.
  interner ??= new CodePointInterner();
  interner.reset();
  const nb = interner.intern(b, bufB);
  const symbols = interner.size;
  const na = interner.intern(a, bufA);
  bufTable.fill(0, 0, symbols + 1);
  const m = new SymbolMatcher(
    bufA.subarray(0, na),
    bufB.subarray(0, nb),
    symbols,
    options.autojunk ?? true,
    bufTable,
  );
  return m.ratio();
}

/**
 * BMP code points → symbols through one table (entries tagged with the interning round that
 * wrote them, so nothing is cleared); the rare astral ones through a Map.
 */
class CodePointInterner {
  size = 0;
  private readonly symbol = new Int32Array(0x10000);
  private readonly tags = new Int32Array(0x10000);
  private tag = 0;
  private readonly astral = new Map<number, number>();

  reset(): void {
    this.size = 0;
    this.astral.clear();
    if (this.tag === 0x7fffffff) {
      this.tags.fill(0);
      this.tag = 0;
    }
    this.tag++;
  }

  /** Writes the symbols of `s` into `out`; returns how many (its length in code points). */
  intern(s: string, out: Int32Array): number {
    const symbol = this.symbol;
    const tags = this.tags;
    const tag = this.tag;
    let n = 0;
    for (let i = 0; i < s.length; i++) {
      const cp = s.charCodeAt(i);
      // A surrogate pair is one code point; a lone surrogate is one too (Array.from keeps it).
      if (cp >= 0xd800 && cp <= 0xdbff && i + 1 < s.length) {
        const lo = s.charCodeAt(i + 1);
        if (lo >= 0xdc00 && lo <= 0xdfff) {
          out[n++] = this.astralSymbol(0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00));
          i++;
          continue;
        }
      }
      if (tags[cp] !== tag) {
        tags[cp] = tag;
        symbol[cp] = this.size++;
      }
      out[n++] = symbol[cp]!;
    }
    return n;
  }

  private astralSymbol(cp: number): number {
    let id = this.astral.get(cp);
    if (id === undefined) {
      id = this.size++;
      this.astral.set(cp, id);
    }
    return id;
  }
}

let interner: CodePointInterner | undefined;

/** `get_matching_blocks()` as `[i, j, size]` in code-point indices. */
export function matchingBlocks(a: string, b: string, options: SequenceMatcherOptions = {}): MatchingBlock[] {
  return stringMatcher(a, b, options).getMatchingBlocks();
}

export function quickRatio(a: string, b: string): number {
  return stringMatcher(a, b).quickRatio();
}

export function realQuickRatio(a: string, b: string): number {
  return stringMatcher(a, b).realQuickRatio();
}

/** The characters of b that autojunk treats as junk (`bpopular`), sorted by code point. */
export function popularElements(a: string, b: string, options: SequenceMatcherOptions = {}): string[] {
  return [...stringMatcher(a, b, options).popular].sort((x, y) => x.codePointAt(0)! - y.codePointAt(0)!);
}
