/**
 * HF's Unicode classes as JavaScript (`v`-flag) class expressions: the runtime's own `\p{X}`
 * with an exceptions table — the code points where HF and this Node disagree — subtracted and
 * added. The table is derived from HF's data (hf-unicode.ts) against the running engine — recorded
 * per Unicode version, computed at first use for an unrecorded one — so it is right on any Node
 * version: on Node 20.20 (Unicode 17) `\p{L}` alone has 4644 code points HF does not count as
 * letters. (Spelling the classes out as explicit ranges would
 * also be exact, but V8 runs such regexes about ten times slower than `\p{…}`.)
 *
 * The recorded file (data/tokenizer/hf-unicode-exceptions.json, written by
 * test/tokenizer/gen-unicode-exceptions.ts) also holds the two parts of HF's data a split
 * pattern needs besides the classes, `\s` and the case folds of `(?i:…)`, and NFC's quick-check
 * table (nfc.ts), and keeps everything as ranges: translating a tokenizer's pattern then reads 2 KB of JSON instead of hf-unicode.json's
 * 105 KB and the 66 KB of single code points it had, which took ~10 ms of every CLI start.
 */
import { readFileSync } from "node:fs";
import { getOrCompute } from "../memo.ts";
import { coreDataPath } from "../package-root.ts";
import { type ClassName, hfUnicode } from "./hf-unicode.ts";

/** Inclusive code point ranges, sorted and disjoint. */
export type Ranges = [number, number][];

export interface ClassExceptions {
  /** In the runtime's `\p{X}` but not in HF's. */
  remove: Ranges;
  /** In HF's class but not in the runtime's `\p{X}`. */
  add: Ranges;
}

/** What hf-unicode-exceptions.json holds. */
export interface RecordedUnicode {
  /** HF's `\s` (classes.s of hf-unicode.json). */
  whitespace: Ranges;
  /** HF's case folds of the ASCII letters that have any (hf-unicode.json's case_fold). */
  case_fold: Record<string, number[]>;
  /** Unicode version → class → exceptions. */
  exceptions: Record<string, Record<string, ClassExceptions>>;
  /** NFC's quick-check table as runs `[first, last, kind]` (nfc.ts `computeTouchRuns`). */
  nfc_touch: [number, number, number][];
}

const exceptionsCache = new Map<ClassName, ClassExceptions>();

let allCodePoints: string | null = null;

/** Every code point but the surrogates, in order (built once, in chunks). */
function allText(): string {
  if (allCodePoints === null) {
    const parts: string[] = [];
    const buf: number[] = [];
    for (let cp = 0; cp < 0x110000; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      buf.push(cp);
      if (buf.length === 4096) {
        parts.push(String.fromCodePoint(...buf));
        buf.length = 0;
      }
    }
    parts.push(String.fromCodePoint(...buf));
    allCodePoints = parts.join("");
  }
  return allCodePoints;
}

/** Code point at a UTF-16 index of `allText()`. */
function cpAt(i: number): number {
  if (i < 0xd800) return i;
  if (i < 0xf800) return i + 0x800;
  return 0x10000 + ((i - 0xf800) >> 1);
}

/** The runtime's `\p{name}` as sorted [first, last] ranges (one regex pass over all code points). */
function runtimeRanges(name: string): [number, number][] {
  const out: [number, number][] = [];
  const text = allText();
  for (const m of text.matchAll(new RegExp(`\\p{${name}}+`, "gu"))) {
    // The last unit may be a low surrogate: cpAt maps it to its pair's code point.
    out.push([cpAt(m.index), cpAt(m.index + m[0].length - 1)]);
  }
  return out;
}

/** Appends [lo, hi] without the surrogates, joined to the last range when adjacent. */
function push(out: Ranges, lo: number, hi: number): void {
  if (lo <= 0xdfff && hi >= 0xd800) {
    if (lo < 0xd800) push(out, lo, 0xd7ff);
    if (hi > 0xdfff) push(out, 0xe000, hi);
    return;
  }
  const last = out.at(-1);
  if (last && last[1] + 1 === lo) last[1] = hi;
  else out.push([lo, hi]);
}

/** Code points in `a` but not in `b` (both sorted, disjoint ranges), surrogates left out. */
function minus(a: Readonly<Ranges>, b: Readonly<Ranges>): Ranges {
  const out: Ranges = [];
  let j = 0;
  for (const [lo, hi] of a) {
    let cp = lo;
    while (cp <= hi) {
      while (j < b.length && b[j]![1] < cp) j++;
      if (j < b.length && b[j]![0] <= cp) {
        cp = b[j]![1] + 1;
        continue;
      }
      const until = j < b.length ? Math.min(hi, b[j]![0] - 1) : hi;
      push(out, cp, until);
      cp = until + 1;
    }
  }
  return out;
}

/** The code points where HF's class `name` and this runtime's `\p{name}` differ, computed (~0.2 s a class). */
export function computeClassExceptions(name: Exclude<ClassName, "s">): ClassExceptions {
  const hf = hfUnicode().classes[name];
  const rt = runtimeRanges(name);
  return { add: minus(hf, rt), remove: minus(rt, hf) };
}

/** The parts of hf-unicode.json the recorded file holds (written by the recorder, checked by its test). */
export function hfRecordedParts(): Pick<RecordedUnicode, "whitespace" | "case_fold"> {
  const hf = hfUnicode();
  return {
    whitespace: hf.classes.s,
    case_fold: Object.fromEntries(Object.entries(hf.case_fold).filter(([, cps]) => cps.length > 0)),
  };
}

let recorded: RecordedUnicode | null = null;

/** The recorded data (data/tokenizer/hf-unicode-exceptions.json; test/tokenizer/unicode-classes.test.ts checks it). */
export function recordedUnicode(): RecordedUnicode {
  recorded ??= JSON.parse(
    readFileSync(coreDataPath("tokenizer", "hf-unicode-exceptions.json"), "utf8"),
  ) as RecordedUnicode;
  return recorded;
}

/**
 * The exceptions for this runtime: recorded for the Unicode versions the project's Node
 * releases ship, computed for any other.
 */
export function classExceptions(name: Exclude<ClassName, "s">): ClassExceptions {
  return getOrCompute(
    exceptionsCache,
    name,
    () =>
      recordedUnicode().exceptions[process.versions.unicode ?? ""]?.[name] ?? computeClassExceptions(name),
  );
}

const hex = (cp: number) => `\\u{${cp.toString(16)}}`;

function compactClass(ranges: Readonly<Ranges>): string {
  return ranges.map(([lo, hi]) => (lo === hi ? hex(lo) : `${hex(lo)}-${hex(hi)}`)).join("");
}

const operands = new Map<ClassName, string>();

/**
 * HF's `\p{name}` as a `v`-flag class operand (usable inside and outside a class). Kept per
 * class: a pre-tokenizer pattern names `\p{L}` several times, and spelling out its thousands of
 * exceptions each time was a visible part of loading a tokenizer.
 */
export function hfClassOperand(name: ClassName): string {
  return getOrCompute(operands, name, buildClassOperand);
}

function buildClassOperand(name: ClassName): string {
  if (name === "s") return `[${hfWhitespace()}]`;
  const { add, remove } = classExceptions(name);
  let set = `\\p{${name}}`;
  if (remove.length) set = `[${set}--[${compactClass(remove)}]]`;
  if (add.length) set = `[${set}${compactClass(add)}]`;
  return set.startsWith("[") ? set : `[${set}]`;
}

/** HF's `\s` (Unicode White_Space as Oniguruma has it) as class contents. */
export function hfWhitespace(): string {
  return compactClass(recordedUnicode().whitespace);
}

/** Code points other than the ASCII pair that `(?i:letter)` matches in Oniguruma (s → ſ). */
export function caseFoldExtras(letter: string): number[] {
  return recordedUnicode().case_fold[letter.toLowerCase()] ?? [];
}
