import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { mulberry32 } from "../../packages/core/src/random.ts";
import { BytePairModel } from "../../packages/core/src/tokenizer/bpe.ts";
import { BYTE_TO_CHAR } from "../../packages/core/src/tokenizer/byte-level.ts";
import { loadTokenizer, qwen3TokenizerDir } from "../../packages/core/src/tokenizer/index.ts";
import { mergeByHeap, mergeByScan } from "../../packages/core/src/tokenizer/merge-loop.ts";
import { readFixture } from "../fixtures.ts";

const tok = loadTokenizer();

test("fixture texts encode to HF ids", () => {
  const data = readFixture("qwen3_visible.json");
  let n = 0;
  for (const c of data.cases) {
    if (c.kind !== "render" || c.hf.error !== null) continue;
    assert.deepEqual(tok.encode(c.hf.text), c.hf.token_ids, c.id);
    assert.equal(tok.decode(c.renderer.token_ids), c.renderer.decoded_text, c.id);
    n++;
  }
  assert.ok(n >= 20);
});

test("random mixed-Unicode texts encode to HF ids (White_Space, NFC, added tokens)", () => {
  const cases: { text: string; ids: number[] }[] = readFixture("tokenizer_random.json").cases;
  assert.ok(cases.length >= 100);
  for (const c of cases) assert.deepEqual(tok.encode(c.text), c.ids, JSON.stringify(c.text));
});

test("added tokens are matched inside text; look-alikes are not", () => {
  assert.deepEqual(tok.encode("a<|im_end|>b"), [64, 151645, 65]);
  const lookalike = tok.encode("<tool" + "_call >");
  assert.ok(!lookalike.includes(151657));
  assert.deepEqual(tok.encode("<tool_call>"), [151657]);
});

test("offsets cover the text and agree with plain encode", () => {
  const text = "Héllo 天气 😀\n\n<|im_end|>  wörld e\u0301";
  const o = tok.encodeWithOffsets(text);
  assert.deepEqual(o.ids, tok.encode(text));
  assert.equal(o.starts[0], 0);
  assert.equal(o.ends.at(-1), text.length);
  for (let i = 1; i < o.ids.length; i++)
    assert.ok(o.starts[i]! >= o.starts[i - 1]! && o.ends[i]! >= o.starts[i]!);
  const imEnd = o.ids.indexOf(151645);
  assert.equal(text.slice(o.starts[imEnd], o.ends[imEnd]), "<|im_end|>");
});

test("decode, skipSpecialTokens, token/id lookups", () => {
  const ids = tok.encode("<|im_start|>user\nhi<|im_end|><think>");
  assert.equal(tok.decode(ids), "<|im_start|>user\nhi<|im_end|><think>");
  assert.equal(tok.decode(ids, { skipSpecialTokens: true }), "user\nhi<think>");
  assert.equal(tok.tokenToId("<|im_end|>"), 151645);
  assert.equal(tok.idToToken(151668), "</think>");
  assert.equal(tok.idToToken(198), "Ċ");
  assert.equal(tok.tokenToId("Ċ"), 198);
  assert.ok(tok.specialTokenIds.has(151643) && !tok.specialTokenIds.has(151657));
  assert.match(tok.chatTemplate ?? "", /<\|im_start\|>/);
});

test("loadTokenizer is cached and accepts a folder path", () => {
  assert.equal(loadTokenizer("qwen3"), tok);
  assert.equal(loadTokenizer(qwen3TokenizerDir()), tok);
  assert.equal(loadTokenizer("Qwen/Qwen3-8B"), tok);
  assert.throws(() => loadTokenizer("Qwen/Qwen3.5-35B"));
  assert.throws(() => loadTokenizer("/nonexistent-dir"));
});

test("decode: byte runs longer than the scratch buffer, split characters, repeated calls", () => {
  const long = "天气 😀 wörld ".repeat(2000); // ~40 KB of UTF-8, many multi-byte characters
  const ids = tok.encode(long);
  const mixed = [...ids, 151645, ...ids.slice(0, 50)];
  const expected = `${long}<|im_end|>${tok.decode(ids.slice(0, 50))}`;
  assert.equal(tok.decode(mixed), expected);
  // A character whose bytes are split over tokens decodes whole when both are present …
  const glyph = tok.encode("𓀀");
  assert.ok(glyph.length > 1, "the hieroglyph is several byte tokens");
  assert.equal(tok.decode(glyph), "𓀀");
  // … and as U+FFFD when an added token cuts it (lossy, like HF), without leaking into later calls.
  assert.equal(tok.decode([glyph[0]!, 151645, ...glyph.slice(1)]).includes("𓀀"), false);
  assert.equal(tok.decode(glyph.slice(0, 1)), "\uFFFD");
  assert.equal(tok.decode([]), "");
  assert.equal(tok.decode(glyph), "𓀀");
  assert.equal(tok.decode(mixed), expected);
});

test("BPE: the heap merge (long pieces) equals the rescanning merge on the real Qwen3 merges", () => {
  const json = JSON.parse(readFileSync(join(qwen3TokenizerDir(), "tokenizer.json"), "utf8"));
  const model = new BytePairModel(json.model, true);
  const symsOf = (piece: string) =>
    [...Buffer.from(piece, "utf8")].map((b) => model.vocab.get(BYTE_TO_CHAR[b]!) as number);
  const rand = mulberry32(7);
  const alphabets = ["ACGT", "ab", "=-", "aaaa", "é天x", "the quick", "\u00a0 ", "lllI1"];
  for (let c = 0; c < 400; c++) {
    const alpha = alphabets[c % alphabets.length]!;
    const len = 1 + Math.floor(rand() * (c % 10 === 0 ? 2000 : 300));
    let piece = "";
    for (let i = 0; i < len; i++) piece += alpha[Math.floor(rand() * alpha.length)];
    const syms = symsOf(piece);
    assert.deepEqual(mergeByHeap(syms, model.merges), mergeByScan(syms.slice(), model.merges), piece);
  }
  assert.deepEqual(mergeByHeap([], model.merges), []);
});

test("BPE: a very long piece (200k letters) encodes in near-linear time", () => {
  const dna = "ACGTTGCAAGCT".repeat(200_000 / 12);
  const t0 = performance.now();
  const ids = tok.encode(dna);
  const ms = performance.now() - t0;
  assert.equal(tok.decode(ids), dna);
  // The rescanning merge needed ~4.5 s for 32k characters (quadratic); the heap takes ~0.1 s.
  assert.ok(ms < 5_000, `${ms} ms`);
});

test("decode equals lossy UTF-8 of the tokens' bytes on random ids (split characters, added, unknown)", () => {
  // The reference: each id's token string through the byte-level alphabet (or its own UTF-8),
  // concatenated, then decoded lossily — independent of the tokenizer's byte tables.
  const lossy = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });
  const byteOf = new Map(BYTE_TO_CHAR.map((ch, b) => [ch, b]));
  const bytesOfToken = (t: string) =>
    [...t].every((ch) => byteOf.has(ch)) ? [...t].map((ch) => byteOf.get(ch)!) : [...Buffer.from(t, "utf8")];
  const reference = (ids: number[], skip: boolean) => {
    const bytes: number[] = [];
    for (const id of ids) {
      if (skip && tok.specialTokenIds.has(id)) continue;
      const t = tok.idToToken(id);
      if (t !== undefined) bytes.push(...bytesOfToken(t));
    }
    return lossy.decode(Uint8Array.from(bytes));
  };
  const rand = mulberry32(11);
  const pieces = tok.encode("𓀀 天气 wörld 😀 <think>ok</think>").concat([151643, 151645, 151667, 151668]);
  const split = tok.encode("𓀀😀天");
  for (let c = 0; c < 300; c++) {
    const ids: number[] = [];
    const n = Math.floor(rand() * 60);
    for (let i = 0; i < n; i++) {
      const r = rand();
      if (r < 0.4) ids.push(Math.floor(rand() * 151_700));
      else if (r < 0.8) ids.push(pieces[Math.floor(rand() * pieces.length)]!);
      else if (r < 0.95) ids.push(split[Math.floor(rand() * split.length)]!);
      else ids.push([-1, 10_000_000, 1.5, 151_700][Math.floor(rand() * 4)]!);
    }
    for (const skip of [false, true])
      assert.equal(tok.decode(ids, { skipSpecialTokens: skip }), reference(ids, skip), JSON.stringify(ids));
  }
});
