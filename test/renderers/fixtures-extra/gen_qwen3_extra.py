"""Generates qwen3_extra.json: extra Qwen3 golden cases in the shared fixture schema.

HF ids come from transformers' apply_chat_template on the real Qwen3 tokenizer files; the
attribution / bridge / parse records come from the Python `renderers` Qwen3Renderer (imported
from a source checkout, with its pydantic config module replaced by a plain stand-in, because
its package __init__ pulls optional dependencies).

Usage:
  pip install transformers tokenizers jinja2
  RENDERERS_SRC=<checkout>/renderers QWEN3_TOKENIZER_DIR=<dir with tokenizer.json,
  tokenizer_config.json, config.json {"model_type":"qwen3","transformers_version":"4.51.0"}> \
  python3 test/renderers/fixtures-extra/gen_qwen3_extra.py
"""

import json
import os
import random
import sys
import types
from dataclasses import dataclass

SRC = os.environ["RENDERERS_SRC"]
TOK_DIR = os.environ["QWEN3_TOKENIZER_DIR"]
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "qwen3_extra.json")

pkg = types.ModuleType("renderers")
pkg.__path__ = [SRC]
sys.modules["renderers"] = pkg
configs = types.ModuleType("renderers.configs")


@dataclass
class Qwen3RendererConfig:
    enable_thinking: bool = True
    preserve_all_thinking: bool = False
    preserve_thinking_between_tool_calls: bool = False


configs.Qwen3RendererConfig = Qwen3RendererConfig
sys.modules["renderers.configs"] = configs

from renderers.qwen3 import Qwen3Renderer  # noqa: E402
from transformers import AutoTokenizer  # noqa: E402

tok = AutoTokenizer.from_pretrained(TOK_DIR)


def rendered_dict(r):
    return {
        "token_ids": r.token_ids,
        "message_indices": r.message_indices,
        "sampled_mask": r.sampled_mask,
        "is_content": r.is_content,
        "message_roles": r.message_roles,
        "message_tool_names": r.message_tool_names,
    }


def cfg_dict(cfg):
    return {
        "preserve_all_thinking": cfg.preserve_all_thinking,
        "preserve_thinking_between_tool_calls": cfg.preserve_thinking_between_tool_calls,
        "name": "qwen3",
        "enable_thinking": cfg.enable_thinking,
    }


def parsed_dict(p):
    return {
        "content": p.content,
        "reasoning_content": p.reasoning_content,
        "tool_calls": [
            {
                "raw": t.raw,
                "name": t.name,
                "arguments": t.arguments,
                "token_span": list(t.token_span) if t.token_span is not None else None,
                "status": t.status.value,
                "id": t.id,
            }
            for t in p.tool_calls
        ],
    }


cases = []


def render_case(cid, messages, tools=None, agp=True, enable_thinking=None, preserve_all=False, preserve_tc=False):
    cfg = Qwen3RendererConfig(
        enable_thinking=True if enable_thinking is None else enable_thinking,
        preserve_all_thinking=preserve_all,
        preserve_thinking_between_tool_calls=preserve_tc,
    )
    r = Qwen3Renderer(tok, cfg)
    kwargs = {"add_generation_prompt": agp}
    if enable_thinking is not None:
        kwargs["enable_thinking"] = enable_thinking
    hf = {"kwargs": kwargs, "text": None, "token_ids": None, "error": None}
    try:
        hf["text"] = tok.apply_chat_template(messages, tools=tools, tokenize=False, **kwargs)
        hf["token_ids"] = list(tok.apply_chat_template(messages, tools=tools, tokenize=True, **kwargs)["input_ids"])
    except Exception as e:  # the template raises on some inputs; envroll then follows the renderer
        hf["error"] = f"{type(e).__name__}: {e}"
    rendered = r.render(messages, tools=tools, add_generation_prompt=agp)
    cases.append(
        {
            "id": cid,
            "kind": "render",
            "messages": messages,
            "tools": tools,
            "add_generation_prompt": agp,
            "enable_thinking": enable_thinking,
            "renderer_config": cfg_dict(cfg),
            "hf": hf,
            "renderer": rendered_dict(rendered),
        }
    )
    # Auto-derived bridges after each assistant message, and a round-trip parse of the last one.
    last_asst = None
    for k, m in enumerate(messages):
        if m["role"] != "assistant" or k == 0:
            continue
        last_asst = k
        nxt = k + 1
        while nxt < len(messages) and messages[nxt]["role"] != "assistant":
            nxt += 1
        new = messages[k + 1 : nxt]
        if not new:
            continue
        prev_prompt = r.render_ids(messages[:k], tools=tools, add_generation_prompt=True)
        full = r.render(messages[: k + 1], tools=tools)
        completion = [t for t, i, s in zip(full.token_ids, full.message_indices, full.sampled_mask) if i == k and s]
        b = r.bridge_to_next_turn(prev_prompt, completion, new, tools=tools)
        cases.append(
            {
                "id": f"{cid}__bridge_after_msg{k}",
                "kind": "bridge",
                "renderer_config": cfg_dict(cfg),
                "prev_prompt_ids": prev_prompt,
                "prev_completion_ids": completion,
                "new_messages": new,
                "tools": tools,
                "result": None if b is None else rendered_dict(b),
            }
        )
    if last_asst is not None:
        full = r.render(messages[: last_asst + 1], tools=tools)
        completion = [
            t for t, i, s in zip(full.token_ids, full.message_indices, full.sampled_mask) if i == last_asst and s
        ]
        parse_case(f"{cid}__roundtrip_parse", completion, tools=tools)


def ids_of(segments):
    ids = []
    for s in segments:
        if isinstance(s, dict):
            ids.append(tok.convert_tokens_to_ids(s["special"]))
        else:
            ids.extend(tok.encode(s, add_special_tokens=False))
    return ids


def parse_case(cid, completion_ids, tools=None):
    r = Qwen3Renderer(tok, Qwen3RendererConfig())
    p = r.parse_response(completion_ids, tools=tools)
    cases.append(
        {
            "id": cid,
            "kind": "parse",
            "renderer_config": cfg_dict(r.config),
            "completion_ids": completion_ids,
            "tools": tools,
            "parsed": parsed_dict(p),
        }
    )


def bridge_case(cid, prompt_messages, text, close, new_messages, trailing="", enable_thinking=True, tools=None):
    cfg = Qwen3RendererConfig(enable_thinking=enable_thinking)
    r = Qwen3Renderer(tok, cfg)
    prev_prompt = [] if prompt_messages is None else r.render_ids(prompt_messages, tools=tools, add_generation_prompt=True)
    completion = tok.encode(text, add_special_tokens=False)
    if close:
        completion.append(tok.convert_tokens_to_ids(close))
    completion += tok.encode(trailing, add_special_tokens=False) if trailing else []
    b = r.bridge_to_next_turn(prev_prompt, completion, new_messages, tools=tools)
    cases.append(
        {
            "id": cid,
            "kind": "bridge",
            "renderer_config": cfg_dict(cfg),
            "prev_prompt_ids": prev_prompt,
            "prev_completion_ids": completion,
            "new_messages": new_messages,
            "tools": tools,
            "result": None if b is None else rendered_dict(b),
        }
    )


exec(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "qwen3_extra_cases.py")).read())

json.dump({"meta": {"generator": "gen_qwen3_extra.py"}, "cases": cases}, open(OUT, "w"), ensure_ascii=False)
print(f"wrote {len(cases)} cases to {OUT}")
