/**
 * The recorded Unicode data a split pattern is translated with
 * (packages/core/data/tokenizer/hf-unicode-exceptions.json, written by gen-unicode-exceptions.ts):
 * it matches hf-unicode.json and this Node, and each class operand built from it matches exactly
 * HF's code points over the whole code space.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { type ClassName, hfUnicode } from "../../packages/core/src/tokenizer/hf-unicode.ts";
import {
  computeClassExceptions,
  hfClassOperand,
  hfRecordedParts,
  type Ranges,
  recordedUnicode,
} from "../../packages/core/src/tokenizer/unicode-classes.ts";

const CLASSES = ["L", "N", "P", "S", "M", "Lu", "Ll", "Lt", "Lm", "Lo"] as const;
const REGENERATE = "run `node --import tsx test/tokenizer/gen-unicode-exceptions.ts`";

test("the recorded \\s and case folds are hf-unicode.json's", () => {
  const { whitespace, case_fold } = recordedUnicode();
  assert.deepEqual({ whitespace, case_fold }, hfRecordedParts(), REGENERATE);
});

const version = process.versions.unicode ?? "";
test(
  `the recorded exceptions of Unicode ${version} are this Node's`,
  {
    skip: recordedUnicode().exceptions[version]
      ? false
      : `Unicode ${version} is not recorded (computed at run time)`,
  },
  () => {
    for (const name of CLASSES)
      assert.deepEqual(
        recordedUnicode().exceptions[version]![name],
        computeClassExceptions(name),
        `${name}: ${REGENERATE}`,
      );
  },
);

/** HF's ranges of `name` without the surrogates (a `v`-flag regex never matches a lone one). */
function hfRanges(name: ClassName): Ranges {
  const out: Ranges = [];
  const add = (lo: number, hi: number) => {
    const last = out.at(-1);
    if (last && last[1] + 1 === lo) last[1] = hi;
    else out.push([lo, hi]);
  };
  for (const [lo, hi] of hfUnicode().classes[name]) {
    if (lo < 0xd800) add(lo, Math.min(hi, 0xd7ff));
    if (hi > 0xdfff) add(Math.max(lo, 0xe000), hi);
  }
  return out;
}

test("each class operand matches exactly HF's code points", () => {
  const cps: number[] = [];
  for (let cp = 0; cp < 0x110000; cp++) if (cp < 0xd800 || cp > 0xdfff) cps.push(cp);
  const chars = cps.map((cp) => String.fromCodePoint(cp));
  for (const name of CLASSES) {
    const re = new RegExp(`^${hfClassOperand(name)}$`, "v");
    const got: Ranges = [];
    for (let i = 0; i < cps.length; i++) {
      if (!re.test(chars[i]!)) continue;
      const last = got.at(-1);
      if (last && last[1] + 1 === cps[i]) last[1] = cps[i]!;
      else got.push([cps[i]!, cps[i]!]);
    }
    assert.deepEqual(got, hfRanges(name), name);
  }
});
