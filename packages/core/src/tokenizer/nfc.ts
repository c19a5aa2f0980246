/**
 * NFC exactly as HF `tokenizers` computes it, from its own decomposition, combining-class and
 * composition data (hf-unicode.ts) rather than the runtime's ICU: a Node whose Unicode is newer
 * composes pairs (Todhri, Kirat Rai, …) that HF leaves apart. Text holding no code point that
 * NFC can touch is returned as is, which is nearly all text.
 */
import { hfUnicode } from "./hf-unicode.ts";
import { type RecordedUnicode, recordedUnicode } from "./unicode-classes.ts";

const S_BASE = 0xac00;
const L_BASE = 0x1100;
const V_BASE = 0x1161;
const T_BASE = 0x11a7;
const V_COUNT = 21;
const T_COUNT = 28;
const N_COUNT = V_COUNT * T_COUNT;
const S_COUNT = 19 * N_COUNT;

interface Tables {
  decomp: Map<number, number[]>;
  ccc: Map<number, number>;
  compose: Map<number, number>;
}

let tables: Tables | null = null;
/**
 * The quick check's table: per code point, 0 where NFC cannot touch it; 1 (TOUCHED) where NFC
 * may change the text (decomposable, non-starter, second half of a pair); 2 (COMPOSED) for a
 * precomposed starter that NFC leaves as is unless a mark follows it (see `computeTouchRuns`).
 * Two levels: `index` gives each 256-code-point block its row in `blocks` (row 0 all zeros), so
 * the ~440 runs of non-zero code points take ~40 KB instead of a 1.1 MB array.
 */
interface TouchTable {
  index: Uint16Array;
  blocks: Uint8Array;
}

let touchTable: TouchTable | null = null;
const TOUCHED = 1;
const COMPOSED = 2;

/** Inclusive runs `[first, last, kind]` of the quick check's non-zero kinds, in order. */
export type TouchRuns = RecordedUnicode["nfc_touch"];

/**
 * The quick check's runs from HF's data: what hf-unicode-exceptions.json records as
 * `nfc_touch` (test/tokenizer/nfc.test.ts checks it). Computing them parses hf-unicode.json and
 * fills two code-space arrays, ~15 ms of the first render of text at or above U+0300 (a
 * prompt with "–" or Vietnamese), which the recorded runs leave to the rare text NFC changes.
 */
export function computeTouchRuns(): TouchRuns {
  const d = hfUnicode();
  const t = new Uint8Array(0x110000);
  for (const k of Object.keys(d.nfd)) t[Number(k)] = TOUCHED;
  for (const k of Object.keys(d.ccc)) t[Number(k)] = TOUCHED;
  for (const entry of d.compose) t[entry[1]] = TOUCHED;
  // A composite of the composition data (a starter that is no pair's second half, whose
  // decomposition starts with such a starter) is its own NFC, and so is any run of them behind
  // an untouched code point: nothing before it composes with its first part, and each one's
  // marks recompose onto it. Only a mark after it can change it. Precomposed text (Vietnamese,
  // Greek with accents, Hangul syllables) is then answered without the full pass's maps, whose
  // building was most of the first render's NFC cost. test/tokenizer/nfc.test.ts checks every
  // such code point against the full pass.
  const isSecond = new Uint8Array(0x110000);
  for (const entry of d.compose) isSecond[entry[1]] = 1;
  for (const [, , c] of d.compose) {
    const first = d.nfd[c]?.[0];
    if (
      !(String(c) in d.ccc) &&
      !isSecond[c] &&
      first !== undefined &&
      !isSecond[first] &&
      !(String(first) in d.ccc)
    )
      t[c] = COMPOSED;
  }
  t.fill(COMPOSED, S_BASE, S_BASE + S_COUNT);
  t.fill(TOUCHED, V_BASE, V_BASE + V_COUNT);
  t.fill(TOUCHED, T_BASE + 1, T_BASE + T_COUNT);
  const runs: TouchRuns = [];
  for (let cp = 0; cp < t.length; cp++) {
    const kind = t[cp]!;
    if (kind === 0) continue;
    const last = runs[runs.length - 1];
    if (last && last[1] === cp - 1 && last[2] === kind) last[1] = cp;
    else runs.push([cp, cp, kind]);
  }
  return runs;
}

function touch(): TouchTable {
  if (touchTable) return touchTable;
  const runs = recordedUnicode().nfc_touch;
  const index = new Uint16Array(0x1100);
  let rows = 1;
  for (const [first, last] of runs)
    for (let b = first >> 8; b <= last >> 8; b++) if (index[b] === 0) index[b] = rows++;
  const blocks = new Uint8Array(rows * 256);
  for (const [first, last, kind] of runs)
    for (let cp = first; cp <= last; cp++) blocks[(index[cp >> 8]! << 8) | (cp & 255)] = kind;
  touchTable = { index, blocks };
  return touchTable;
}

/** The quick check's kind of code point `cp` (see TouchTable). */
function kindOf(t: TouchTable, cp: number): number {
  return t.blocks[(t.index[cp >> 8]! << 8) | (cp & 255)]!;
}

function load(): Tables {
  if (tables) return tables;
  const d = hfUnicode();
  const decomp = new Map<number, number[]>();
  for (const [k, v] of Object.entries(d.nfd)) decomp.set(Number(k), v);
  const ccc = new Map<number, number>();
  for (const [k, v] of Object.entries(d.ccc)) ccc.set(Number(k), v);
  const compose = new Map<number, number>();
  for (const [a, b, c] of d.compose) compose.set(a * 0x110000 + b, c);
  tables = { decomp, ccc, compose };
  return tables;
}

/**
 * Where the first code unit at or above U+0300 stands (`text.length` when there is none). Below
 * U+0300 every character is its own NFC and none combines with the one before it (the first
 * combining mark is U+0300), so text made only of them, which is nearly all prompts, is
 * answered without reading any table.
 */
function firstAbove0300(text: string): number {
  let i = 0;
  while (i < text.length && text.charCodeAt(i) < 0x300) i++;
  return i;
}

/** True when NFC could change `text` (a quick check; false means NFC(text) === text). */
export function mayChangeUnderNfc(text: string): boolean {
  let i = firstAbove0300(text);
  if (i === text.length) return false;
  const touched = touch();
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x300) continue;
    const cp = text.codePointAt(i)!;
    if (kindOf(touched, cp) === TOUCHED) return true;
    if (cp > 0xffff) i++;
  }
  return false;
}

/**
 * NFC of `text`, the full pass run only over the runs that need it. The text is cut before every
 * code point NFC cannot touch (below U+0300, or clear in the quick check's table: a starter that
 * does not decompose and never joins the one before it): nothing from the left moves past such a
 * starter or composes with it, so NFC of the text is NFC of each run, and a run of untouched
 * code points is its own NFC. Already-composed text (most text with accents) comes back as the
 * same string, without a code point array for the whole of it.
 */
export function hfNfc(text: string): string {
  let i = firstAbove0300(text);
  if (i === text.length) return text;
  const touched = touch();
  let out = "";
  let copied = 0; // text[0, copied) is in `out` (once a run changed)
  // The code point before the first one at or above U+0300 starts its run (it may compose with it).
  let runStart = i > 0 ? i - 1 : 0;
  let runTouched = false;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    const cp = c < 0xd800 || c > 0xdbff ? c : text.codePointAt(i)!;
    const kind = cp < 0x300 ? 0 : kindOf(touched, cp);
    if (kind === 0) {
      if (runTouched) {
        const run = text.slice(runStart, i);
        const composed = composeNfc(run);
        if (composed !== run) {
          out += text.slice(copied, runStart) + composed;
          copied = i;
        }
      }
      runStart = i;
      runTouched = false;
    } else if (kind === TOUCHED) runTouched = true;
    i += cp > 0xffff ? 2 : 1;
  }
  if (runTouched) {
    const run = text.slice(runStart);
    const composed = composeNfc(run);
    if (composed !== run) {
      out += text.slice(copied, runStart) + composed;
      copied = text.length;
    }
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** The full decompose → reorder → compose pass, without the quick check (exported for its test). */
export function composeNfc(text: string): string {
  const { decomp, ccc, compose } = load();
  const cps: number[] = [];
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (cp >= S_BASE && cp < S_BASE + S_COUNT) {
      const s = cp - S_BASE;
      cps.push(L_BASE + Math.floor(s / N_COUNT), V_BASE + Math.floor((s % N_COUNT) / T_COUNT));
      if (s % T_COUNT) cps.push(T_BASE + (s % T_COUNT));
    } else {
      const d = decomp.get(cp);
      if (d) for (const x of d) cps.push(x);
      else cps.push(cp);
    }
  }
  const cls = (cp: number) => ccc.get(cp) ?? 0;
  // Canonical ordering: a stable sort of each run of non-starters by combining class.
  for (let i = 1; i < cps.length; i++) {
    const c = cls(cps[i]!);
    if (c === 0) continue;
    let j = i;
    while (j > 0 && cls(cps[j - 1]!) > c) {
      [cps[j - 1], cps[j]] = [cps[j]!, cps[j - 1]!];
      j--;
    }
  }
  const pair = (a: number, b: number): number | undefined => {
    if (a >= L_BASE && a < L_BASE + 19 && b >= V_BASE && b < V_BASE + V_COUNT)
      return S_BASE + ((a - L_BASE) * V_COUNT + (b - V_BASE)) * T_COUNT;
    if (
      a >= S_BASE &&
      a < S_BASE + S_COUNT &&
      (a - S_BASE) % T_COUNT === 0 &&
      b > T_BASE &&
      b < T_BASE + T_COUNT
    )
      return a + (b - T_BASE);
    return compose.get(a * 0x110000 + b);
  };
  // Canonical composition (UAX #15): each mark joins the last starter unless blocked.
  const out: number[] = [];
  let starter = -1;
  let lastClass = -1;
  for (const cp of cps) {
    const c = cls(cp);
    if (starter >= 0 && (lastClass < c || lastClass === 0)) {
      const composite = pair(out[starter]!, cp);
      if (composite !== undefined) {
        out[starter] = composite;
        continue;
      }
    }
    if (c === 0) starter = out.length;
    lastClass = c;
    out.push(cp);
  }
  let result = "";
  for (let i = 0; i < out.length; i += 4096) result += String.fromCodePoint(...out.slice(i, i + 4096));
  return result;
}
