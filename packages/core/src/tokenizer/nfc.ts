/**
 * NFC exactly as HF `tokenizers` computes it, from its own decomposition, combining-class and
 * composition data (hf-unicode.ts) rather than the runtime's ICU: a Node whose Unicode is newer
 * composes pairs (Todhri, Kirat Rai, …) that HF leaves apart. Text holding no code point that
 * NFC can touch is returned as is, which is nearly all text.
 */
import { hfUnicode } from "./hf-unicode.ts";

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
  /** 1 where NFC may change the text (decomposable, non-starter, second half of a pair). */
  touch: Uint8Array;
}

let tables: Tables | null = null;

function load(): Tables {
  if (tables) return tables;
  const d = hfUnicode();
  const touch = new Uint8Array(0x110000);
  const decomp = new Map<number, number[]>();
  for (const [k, v] of Object.entries(d.nfd)) {
    decomp.set(Number(k), v);
    touch[Number(k)] = 1;
  }
  const ccc = new Map<number, number>();
  for (const [k, v] of Object.entries(d.ccc)) {
    ccc.set(Number(k), v);
    touch[Number(k)] = 1;
  }
  const compose = new Map<number, number>();
  for (const [a, b, c] of d.compose) {
    compose.set(a * 0x110000 + b, c);
    touch[b] = 1;
  }
  touch.fill(1, S_BASE, S_BASE + S_COUNT);
  touch.fill(1, V_BASE, V_BASE + V_COUNT);
  touch.fill(1, T_BASE + 1, T_BASE + T_COUNT);
  tables = { decomp, ccc, compose, touch };
  return tables;
}

/** True when NFC could change `text` (a quick check; false means NFC(text) === text). */
export function mayChangeUnderNfc(text: string): boolean {
  // Below U+0300 every character is its own NFC and none combines with the one before it (the
  // first combining mark is U+0300), so text made only of them, which is nearly all prompts, is
  // answered without building the tables (a 1.1 MB array and three maps: a few ms at start-up).
  let i = 0;
  while (i < text.length && text.charCodeAt(i) < 0x300) i++;
  if (i === text.length) return false;
  const { touch } = load();
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x300) continue;
    const cp = text.codePointAt(i)!;
    if (touch[cp]) return true;
    if (cp > 0xffff) i++;
  }
  return false;
}

export function hfNfc(text: string): string {
  return mayChangeUnderNfc(text) ? composeNfc(text) : text;
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
