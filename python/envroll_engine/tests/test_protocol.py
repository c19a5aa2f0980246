"""/generate wire format: response shapes, 400s, batches, n, text input, SSE, info endpoints."""

from __future__ import annotations

import http.client
import json

import pytest
from engine_spawn import SHARES_SESSION_ENGINES

pytestmark = SHARES_SESSION_ENGINES

PROMPT = [
    151644,
    872,
    198,
    9707,
    151645,
    198,
    151644,
    77091,
    198,
]  # <|im_start|>user\nHello<|im_end|>\n<|im_start|>assistant\n


def test_response_shape(engine):
    out = engine.generate(
        {
            "input_ids": PROMPT,
            "rid": "shape-1",
            "return_logprob": True,
            "sampling_params": {"max_new_tokens": 4, "sampling_seed": 3},
        }
    )
    assert set(out) == {"text", "output_ids", "meta_info"}
    meta = out["meta_info"]
    assert meta["id"] == "shape-1"
    assert meta["finish_reason"] == {"type": "length", "length": 4}
    assert meta["prompt_tokens"] == len(PROMPT)
    assert meta["completion_tokens"] == len(out["output_ids"]) == 4
    assert meta["cached_tokens"] == 0
    assert meta["weight_version"] == "default"
    assert isinstance(meta["e2e_latency"], float) and meta["e2e_latency"] > 0
    assert meta["input_token_logprobs"] == []  # logprob_start_len defaults to -1: output only
    lps = meta["output_token_logprobs"]
    assert [t[1] for t in lps] == out["output_ids"]
    assert all(t[2] is None and isinstance(t[0], float) and t[0] <= 0 for t in lps)
    assert isinstance(out["text"], str)


def test_default_rid_is_uuid_hex_and_no_logprobs_unless_asked(engine):
    out = engine.generate({"input_ids": PROMPT, "sampling_params": {"max_new_tokens": 1}})
    rid = out["meta_info"]["id"]
    assert len(rid) == 32 and int(rid, 16) >= 0
    assert "output_token_logprobs" not in out["meta_info"]


def test_text_input(engine, tokenizer):
    out = engine.generate({"text": "Hello there", "sampling_params": {"max_new_tokens": 2}})
    assert out["meta_info"]["prompt_tokens"] == len(tokenizer.encode("Hello there", add_special_tokens=False))


def test_batch_and_rid_suffixes(engine):
    out = engine.generate({"input_ids": [PROMPT, PROMPT[:3]], "rid": "b", "sampling_params": {"max_new_tokens": 2}})
    assert isinstance(out, list) and len(out) == 2
    assert [o["meta_info"]["id"] for o in out] == ["b_0", "b_1"]
    assert [o["meta_info"]["prompt_tokens"] for o in out] == [len(PROMPT), 3]


def test_n_becomes_batch_with_fresh_rids(engine):
    out = engine.generate({"input_ids": PROMPT, "rid": "n", "sampling_params": {"max_new_tokens": 2, "n": 3}})
    assert isinstance(out, list) and len(out) == 3
    ids = {o["meta_info"]["id"] for o in out}
    assert len(ids) == 3 and "n" not in ids


def test_max_new_tokens_zero(engine):
    out = engine.generate({"input_ids": PROMPT, "sampling_params": {"max_new_tokens": 0}})
    assert out["output_ids"] == [] and out["meta_info"]["finish_reason"] == {"type": "length", "length": 0}


BAD = [
    ({}, "Either text, input_ids"),
    ({"input_ids": []}, "input_ids cannot be empty"),
    ({"input_ids": [[1], []]}, "input_ids cannot be empty"),
    ({"input_ids": [1, 999999]}, "not a token id"),
    ({"input_ids": [1], "text": "x"}, "Either text or input_ids"),
    ({"input_ids": [1], "sampling_params": {"temperature": -0.5}}, "temperature"),
    ({"input_ids": [1], "sampling_params": {"top_p": 0}}, "top_p"),
    ({"input_ids": [1], "sampling_params": {"top_p": 1.5}}, "top_p"),
    ({"input_ids": [1], "sampling_params": {"top_k": 0}}, "top_k"),
    ({"input_ids": [1], "sampling_params": {"min_p": 2}}, "min_p"),
    ({"input_ids": [1], "sampling_params": {"max_new_tokens": -1}}, "max_new_tokens"),
    ({"input_ids": [1], "sampling_params": {"max_new_tokens": 2, "min_new_tokens": 3}}, "min_new_tokens"),
    ({"input_ids": [1], "sampling_params": {"bogus_key": 1}}, "Unknown sampling parameter"),
    ({"input_ids": [1], "sampling_params": {"repetition_penalty": 1.3}}, "not supported"),
    ({"input_ids": [1], "sampling_params": {"temperature": "hot"}}, "number"),
    ({"input_ids": [[1], [2]], "rid": ["a"]}, "rids"),
    ({"input_ids": [[1], [2]], "rid": ["a", "a"]}, "Duplicate"),
    ({"input_ids": [1] * 8192}, "context length"),
    ({"input_ids": [1] * 8000, "sampling_params": {"max_new_tokens": 500}}, "context length"),
    ({"input_ids": [1], "input_embeds": [[0.0]]}, "not supported"),
]


@pytest.mark.parametrize("body,needle", BAD, ids=[n for _, n in BAD])
def test_bad_requests_are_400_with_sglang_error_body(engine, body, needle):
    status, out = engine.post("/generate", body)
    assert status == 400
    assert set(out) == {"error"} and needle in out["error"]["message"]


def test_invalid_json_is_400(engine):
    conn = http.client.HTTPConnection(engine.host, engine.port, timeout=30)
    conn.request("POST", "/generate", body="{not json", headers={"Content-Type": "application/json"})
    resp = conn.getresponse()
    assert resp.status == 400 and "error" in json.loads(resp.read())


def test_null_sampling_values_mean_default(engine):
    out = engine.generate(
        {
            "input_ids": PROMPT,
            "sampling_params": {"max_new_tokens": 2, "top_k": None, "stop": None, "frequency_penalty": 0.0},
        }
    )
    assert out["meta_info"]["completion_tokens"] == 2


def sse_events(engine, body) -> list:
    conn = http.client.HTTPConnection(engine.host, engine.port, timeout=60)
    conn.request("POST", "/generate", body=json.dumps(body), headers={"Content-Type": "application/json"})
    resp = conn.getresponse()
    assert resp.status == 200 and resp.getheader("Content-Type") == "text/event-stream"
    raw = resp.read().decode()
    events = [e for e in raw.split("\n\n") if e]
    assert all(e.startswith("data: ") for e in events)
    return [e[len("data: ") :] for e in events]


def test_stream_is_cumulative_and_ends_with_done(engine):
    events = sse_events(
        engine,
        {
            "input_ids": PROMPT,
            "stream": True,
            "return_logprob": True,
            "sampling_params": {"max_new_tokens": 5, "sampling_seed": 7},
        },
    )
    assert events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    lengths = [len(c["output_ids"]) for c in chunks]
    assert lengths == sorted(lengths) and lengths[-1] == 5
    assert all(c["meta_info"]["finish_reason"] is None for c in chunks[:-1])
    assert chunks[-1]["meta_info"]["finish_reason"] == {"type": "length", "length": 5}
    plain = engine.generate(
        {"input_ids": PROMPT, "return_logprob": True, "sampling_params": {"max_new_tokens": 5, "sampling_seed": 7}}
    )
    assert chunks[-1]["output_ids"] == plain["output_ids"]
    assert len(chunks[-1]["meta_info"]["output_token_logprobs"]) == 5


def test_stream_batch_chunks_carry_index(engine):
    events = sse_events(
        engine, {"input_ids": [PROMPT, PROMPT], "stream": True, "sampling_params": {"max_new_tokens": 2}}
    )
    chunks = [json.loads(e) for e in events[:-1]]
    assert {c["index"] for c in chunks} == {0, 1}


def test_info_endpoints(engine):
    assert engine.get("/health")[0] == 200
    assert engine.get("/health_generate")[0] == 200
    status, info = engine.get("/get_model_info")
    assert status == 200 and info["model_path"] == "tiny-qwen3-seed0" and info["is_generation"] is True
    assert info["architectures"] == ["Qwen3ForCausalLM"] and "weight_version" in info
    status, models = engine.get("/v1/models")
    assert models["object"] == "list" and models["data"][0]["max_model_len"] == 8192
    assert models["data"][0]["owned_by"] == "sglang"
    status, server = engine.get("/get_server_info")
    assert server["eos_token_ids"] == [151643, 151645] and server["vocab_size"] == 151669
    assert engine.get("/nope")[0] == 404
    assert engine.get("/generate")[0] == 405


def test_keep_alive_survives_unread_bodies_and_chunked_requests(engine):
    conn = http.client.HTTPConnection(engine.host, engine.port, timeout=30)
    conn.request("POST", "/health", body=json.dumps({"junk": "x" * 100}))  # body the route ignores
    resp = conn.getresponse()
    assert resp.status == 200
    resp.read()
    conn.request("POST", "/nope", body="{}")
    resp = conn.getresponse()
    assert resp.status == 404
    resp.read()
    body = json.dumps({"input_ids": PROMPT, "sampling_params": {"max_new_tokens": 2}}).encode()
    conn.request(
        "POST",
        "/generate",
        body=iter([body[:10], body[10:]]),
        encode_chunked=True,
        headers={"Content-Type": "application/json", "Transfer-Encoding": "chunked"},
    )
    resp = conn.getresponse()
    assert resp.status == 200 and json.loads(resp.read())["meta_info"]["completion_tokens"] == 2
    conn.close()
