import assert from "node:assert/strict";
import { test } from "node:test";
import { mulberry32 } from "../../packages/core/src/random.ts";
import * as hfUnicodeModule from "../../packages/core/src/tokenizer/hf-unicode.ts";
import { loadTokenizer } from "../../packages/core/src/tokenizer/index.ts";
import {
  composeNfc,
  computeTouchRuns,
  hfNfc,
  mayChangeUnderNfc,
} from "../../packages/core/src/tokenizer/nfc.ts";
import { recordedUnicode } from "../../packages/core/src/tokenizer/unicode-classes.ts";

type Range = readonly [number, number];
/** ASCII and U+00A0..U+02FF: text below the combining marks, NFC's shortcut case. */
const BELOW_MARKS: readonly Range[] = [
  [0x20, 0x7e],
  [0xa0, 0x2ff],
];
const COMBINING_MARKS: Range = [0x300, 0x36f];
/** Conjoining jamo (L, V, T) and the precomposed syllables they compose into. */
const HANGUL: readonly Range[] = [
  [0x1100, 0x1112],
  [0x1161, 0x1175],
  [0x11a8, 0x11c2],
  [0xac00, 0xd7a3],
];

/** 1 to `maxLength` code points, each drawn uniformly from a uniformly chosen [lo, hi] pool. */
function randomText(rand: () => number, pools: readonly Range[], maxLength: number): string {
  const cps: number[] = [];
  const len = 1 + Math.floor(rand() * maxLength);
  for (let k = 0; k < len; k++) {
    const [lo, hi] = pools[Math.floor(rand() * pools.length)]!;
    cps.push(lo + Math.floor(rand() * (hi - lo + 1)));
  }
  return String.fromCodePoint(...cps);
}

test("NFC: the recorded quick-check runs are the ones hf-unicode.json gives", () => {
  const runs = computeTouchRuns();
  assert.ok(runs.length > 400, String(runs.length));
  assert.deepEqual(
    recordedUnicode().nfc_touch,
    runs,
    "run `node --import tsx test/tokenizer/gen-unicode-exceptions.ts`",
  );
});

// hfNfc answers text below U+0300 without its tables; these check that shortcut against the
// full pass on HF's own data, and that a trigger anywhere in the text still reaches the full pass.

test("NFC: every code point below U+0300 is left as is by the full pass, alone and in sequence", () => {
  const cps = Array.from({ length: 0x300 }, (_, i) => i);
  const all = String.fromCodePoint(...cps);
  assert.equal(composeNfc(all), all);
  assert.equal(composeNfc([...all].reverse().join("")), [...all].reverse().join(""));
  for (const cp of cps) assert.equal(composeNfc(String.fromCodePoint(cp)), String.fromCodePoint(cp));
  assert.equal(mayChangeUnderNfc(all), false);
});

test("NFC: all code points the quick check passes, side by side, are left as is by the full pass", () => {
  const passed: number[] = [];
  for (let cp = 0x300; cp < 0x110000; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    if (!mayChangeUnderNfc(String.fromCodePoint(cp))) passed.push(cp);
  }
  // Most of Unicode (CJK, "…", emoji) must pass, or the quick check would save nothing.
  assert.ok(passed.length > 1_000_000, String(passed.length));
  let text = "";
  for (let i = 0; i < passed.length; i += 4096) text += String.fromCodePoint(...passed.slice(i, i + 4096));
  assert.equal(mayChangeUnderNfc(text), false);
  assert.ok(composeNfc(text) === text);
  assert.equal(mayChangeUnderNfc("today \u4eca\u5929\u2026 and \u{1f600}"), false);
});

test("NFC: a combining mark or jamo at any position reaches the full pass", () => {
  assert.equal(hfNfc("plain text cafe\u0301"), "plain text caf\u00e9");
  assert.equal(hfNfc("e\u0301 then ascii"), "\u00e9 then ascii");
  assert.equal(hfNfc("hangul \u1100\u1161\u11a8"), "hangul \uac01");
  assert.equal(hfNfc("a\u0323\u0302"), "\u1ead");
  assert.equal(mayChangeUnderNfc("ascii then \u0301"), true);
});

test("NFC: on random mixes of ASCII, Latin-1, marks and Hangul the shortcut equals the full pass", () => {
  const pools = [...BELOW_MARKS, COMBINING_MARKS, ...HANGUL];
  const rand = mulberry32(7);
  for (let n = 0; n < 2000; n++) {
    // A third of the texts stay below U+0300, the shortcut's case.
    const text = randomText(rand, n % 3 === 0 ? BELOW_MARKS : pools, 12);
    assert.equal(hfNfc(text), composeNfc(text), JSON.stringify(text));
  }
});

test("NFC: the tokenizer gives decomposed and composed text the same ids", () => {
  const tok = loadTokenizer();
  assert.deepEqual(tok.encode("cafe\u0301 au lait"), tok.encode("caf\u00e9 au lait"));
  assert.deepEqual(tok.encode("\u1100\u1161\u11a8 word"), tok.encode("\uac01 word"));
  assert.notDeepEqual(tok.encode("cafe au lait"), tok.encode("caf\u00e9 au lait"));
});

test("NFC by runs equals the full pass over the whole text (long mixed texts, astral, exclusions)", () => {
  const pools: readonly Range[] = [
    ...BELOW_MARKS,
    COMBINING_MARKS,
    [0x1e00, 0x1eff], // Latin Extended Additional (precomposed, with decompositions)
    [0x0f40, 0x0f80], // Tibetan, with composition exclusions
    [0x0900, 0x097f], // Devanagari, with composition exclusions
    ...HANGUL,
    [0x4e00, 0x4e80], // CJK: no decomposition
    [0x1d15e, 0x1d16d], // musical symbols: astral, excluded from composition
    [0x2f800, 0x2f810], // CJK compatibility ideographs: astral singletons
  ];
  const rand = mulberry32(20261202);
  let changed = 0;
  for (let n = 0; n < 3000; n++) {
    const text = randomText(rand, pools, 60);
    const whole = composeNfc(text);
    assert.equal(hfNfc(text), whole, JSON.stringify(text));
    if (whole !== text) changed++;
  }
  assert.ok(changed > 1000, `NFC changed only ${changed} texts`);
  // Unchanged text comes back as the very string (no copy), as the tokenizer's offset remap expects.
  const composed = "Tiếng Việt, Grüße, 한국어, café";
  assert.equal(composeNfc(composed), composed);
  assert.equal(hfNfc(composed), composed);
});

test("NFC: every decomposable code point, alone, after a starter, before a mark and side by side, as the full pass", () => {
  const { hfUnicode } = hfUnicodeModule;
  const cps = Object.keys(hfUnicode().nfd).map(Number);
  // The precomposed syllables the quick check lets through without the full pass.
  for (let cp = 0xac00; cp < 0xd7a4; cp += 97) cps.push(cp);
  assert.ok(cps.length > 2000, String(cps.length));
  let passed = 0;
  for (const cp of cps) {
    const x = String.fromCodePoint(cp);
    for (const text of [
      x,
      `a${x}`,
      `\u1100${x}`,
      `${x}b`,
      `${x}\u0301`,
      `${x}\u0323`,
      `${x}\u11a8`,
      `e${x}${x}`,
    ]) {
      assert.equal(hfNfc(text), composeNfc(text), `U+${cp.toString(16)} in ${JSON.stringify(text)}`);
    }
    if (!mayChangeUnderNfc(`a${x}`)) passed++;
  }
  // Precomposed letters (Vietnamese, accented Greek, Hangul syllables) must pass the quick check.
  assert.ok(passed > 1000, String(passed));
  assert.equal(mayChangeUnderNfc("Ti\u1ebfng Vi\u1ec7t \u03ac \ud55c"), false);
  let all = "";
  for (let i = 0; i < cps.length; i += 4096) all += String.fromCodePoint(...cps.slice(i, i + 4096));
  assert.equal(hfNfc(all), composeNfc(all));
});
