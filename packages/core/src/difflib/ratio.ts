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
  // Identical strings match as one block (ratio 1) unless autojunk can remove characters, which
  // CPython only does from 200 elements of b. A correct reply is the common case in RL, and this
  // skips the matcher's index building for it (about a tenth of a reverse-text rollout's CPU).
  if (a === b && (options.autojunk === false || pyLenBelow(b, 200))) return 1;
  // No element can match when one side is empty: 0, or 1 for two empty strings.
  if (a === "" || b === "") return a === b ? 1 : 0;
  return codePointMatcher(a, b, options).ratio();
}

/**
 * The matcher over code points, interned straight from the UTF-16 text (no per-character
 * strings): b's distinct code points get symbols first, as SequenceMatcher's interning does.
 */
function codePointMatcher(a: string, b: string, options: SequenceMatcherOptions): SymbolMatcher {
  const interner = new CodePointInterner();
  const bs = interner.intern(b);
  const symbols = interner.size;
  const as = interner.intern(a);
  return new SymbolMatcher(as, bs, symbols, options.autojunk ?? true);
}

/**
 * BMP code points → symbols through one table shared by every call (entries tagged with the
 * call that wrote them, so nothing is cleared); the rare astral ones through a Map.
 */
const bmpSymbol = new Int32Array(0x10000);
const bmpTag = new Int32Array(0x10000);
let internCall = 0;

class CodePointInterner {
  size = 0;
  private readonly tag: number;
  private astral: Map<number, number> | null = null;

  constructor() {
    if (internCall === 0x7fffffff) {
      bmpTag.fill(0);
      internCall = 0;
    }
    this.tag = ++internCall;
  }

  intern(s: string): Int32Array {
    const out = new Int32Array(s.length);
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
      if (bmpTag[cp] !== tag) {
        bmpTag[cp] = tag;
        bmpSymbol[cp] = this.size++;
      }
      out[n++] = bmpSymbol[cp]!;
    }
    return n === out.length ? out : out.subarray(0, n);
  }

  private astralSymbol(cp: number): number {
    this.astral ??= new Map();
    let id = this.astral.get(cp);
    if (id === undefined) {
      id = this.size++;
      this.astral.set(cp, id);
    }
    return id;
  }
}

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

/** Whether `s` has fewer than `n` code points, without materializing them. */
function pyLenBelow(s: string, n: number): boolean {
  if (s.length < n) return true;
  let count = 0;
  for (const _ of s) if (++count >= n) return false;
  return true;
}
