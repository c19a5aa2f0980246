"""Sampling semantics and the logprob contract (engine == teacher forcing to 1e-5)."""

from __future__ import annotations

import pytest
import torch
from engine_spawn import SHARES_SESSION_ENGINES

from envroll_engine.scoring import token_logprobs

pytestmark = SHARES_SESSION_ENGINES

PROMPT = [151644, 872, 198, 9707, 11, 1879, 151645, 198, 151644, 77091, 198]
TOL = 1e-5


def gen(engine, **sp):
    body = {"input_ids": PROMPT, "return_logprob": True, "sampling_params": {"max_new_tokens": 16, **sp}}
    return engine.generate(body)


def logprobs_of(out):
    return [t[0] for t in out["meta_info"]["output_token_logprobs"]]


def test_seeded_determinism(engine):
    a, b = gen(engine, sampling_seed=11), gen(engine, sampling_seed=11)
    c = gen(engine, sampling_seed=12)
    assert a["output_ids"] == b["output_ids"] and logprobs_of(a) == logprobs_of(b)
    assert a["output_ids"] != c["output_ids"]


@pytest.mark.parametrize("temperature,extra", [(1.0, {}), (0.7, {}), (0.7, {"top_k": 50, "top_p": 0.9})])
def test_logprobs_match_teacher_forcing(engine, twin, temperature, extra):
    out = gen(engine, sampling_seed=5, temperature=temperature, max_new_tokens=24, **extra)
    lps = logprobs_of(out)
    assert all(lp <= 0 for lp in lps)
    ref = token_logprobs(twin.model, PROMPT + out["output_ids"], len(PROMPT), temperature=temperature)
    diff = (torch.tensor(lps, dtype=torch.float64) - ref.double()).abs().max().item()
    assert diff <= TOL, diff


def test_greedy_is_argmax_and_scored_at_temperature_one(engine, twin):
    out = gen(engine, temperature=0.0, max_new_tokens=8)
    seq = PROMPT + out["output_ids"]
    with torch.inference_mode():
        logits = twin.model(input_ids=torch.tensor([seq])).logits[0]
    assert out["output_ids"] == logits[len(PROMPT) - 1 : -1].argmax(-1).tolist()
    ref = token_logprobs(twin.model, seq, len(PROMPT), temperature=1.0)
    assert (torch.tensor(logprobs_of(out)) - ref).abs().max().item() <= TOL


def test_top_k_only_samples_from_top_k(engine, twin):
    out = gen(engine, sampling_seed=9, top_k=3, max_new_tokens=12)
    seq = PROMPT + out["output_ids"]
    with torch.inference_mode():
        logits = twin.model(input_ids=torch.tensor([seq])).logits[0]
    top3 = logits[len(PROMPT) - 1 : -1].topk(3, dim=-1).indices.tolist()
    assert all(t in row for t, row in zip(out["output_ids"], top3, strict=True))


def test_input_token_logprobs(engine, twin):
    out = engine.generate(
        {"input_ids": PROMPT, "return_logprob": True, "logprob_start_len": 0, "sampling_params": {"max_new_tokens": 0}}
    )
    inp = out["meta_info"]["input_token_logprobs"]
    assert [t[1] for t in inp] == PROMPT and inp[0][0] is None
    ref = token_logprobs(twin.model, PROMPT, 1)
    assert (torch.tensor([t[0] for t in inp[1:]]) - ref).abs().max().item() <= TOL


def test_input_token_logprobs_from_a_later_start_are_none_first(engine, twin):
    # SGLang pads the entry at logprob_start_len with None whatever the position, so Miles' prefill
    # recompute asks for prompt_len - 1 to get every response token scored.
    k = 3
    body = {"input_ids": PROMPT, "return_logprob": True, "sampling_params": {"max_new_tokens": 0}}
    inp = engine.generate({**body, "logprob_start_len": k})["meta_info"]["input_token_logprobs"]
    assert [t[1] for t in inp] == PROMPT[k:] and inp[0][0] is None
    ref = token_logprobs(twin.model, PROMPT, k + 1)
    assert (torch.tensor([t[0] for t in inp[1:]]) - ref).abs().max().item() <= TOL


def _first_index(ids, tok):
    return ids.index(tok)


def test_stop_token_ids_keep_token_in_output_and_trim_text(engine, tokenizer):
    free = gen(engine, sampling_seed=21, max_new_tokens=8)["output_ids"]
    stop = free[4]
    k = _first_index(free, stop)
    out = gen(engine, sampling_seed=21, max_new_tokens=8, stop_token_ids=[stop])
    assert out["output_ids"] == free[: k + 1]
    assert out["meta_info"]["finish_reason"] == {"type": "stop", "matched": stop}
    assert len(out["meta_info"]["output_token_logprobs"]) == k + 1
    assert out["text"] == tokenizer.decode(free[:k])
    kept = gen(engine, sampling_seed=21, max_new_tokens=8, stop_token_ids=[stop], no_stop_trim=True)
    assert kept["text"] == tokenizer.decode(free[: k + 1])


def test_stop_token_on_last_allowed_position_reports_length(engine):
    free = gen(engine, sampling_seed=22, max_new_tokens=3)["output_ids"]
    if free[2] in free[:2]:
        pytest.skip("seed produced a repeated token")
    out = gen(engine, sampling_seed=22, max_new_tokens=3, stop_token_ids=[free[2]])
    assert out["meta_info"]["finish_reason"] == {"type": "length", "length": 3}


def test_min_new_tokens_blocks_stop_ids(engine):
    free = gen(engine, sampling_seed=23, max_new_tokens=8)["output_ids"]
    stop = free[0]
    out = gen(engine, sampling_seed=23, max_new_tokens=8, stop_token_ids=[stop], min_new_tokens=4)
    assert stop not in out["output_ids"][:4]
    assert len(out["output_ids"]) >= 4


def test_max_new_tokens_gives_length(engine):
    out = gen(engine, sampling_seed=1, max_new_tokens=7, ignore_eos=True)
    assert len(out["output_ids"]) == 7
    assert out["meta_info"]["finish_reason"] == {"type": "length", "length": 7}


def test_stop_string(engine, tokenizer):
    free = gen(engine, sampling_seed=31, max_new_tokens=6)
    piece = tokenizer.decode(free["output_ids"][2:3])
    if not piece.strip() or piece in tokenizer.decode(free["output_ids"][:2]):
        pytest.skip("sampled piece unusable as a stop string")
    out = gen(engine, sampling_seed=31, max_new_tokens=6, stop=[piece])
    assert out["meta_info"]["finish_reason"] == {"type": "stop", "matched": piece}
    assert out["output_ids"] == free["output_ids"][:3]
    assert piece not in out["text"]


def test_default_stop_ids_are_qwen_eos(twin):
    from envroll_engine.model import eos_token_ids

    assert eos_token_ids(twin.model, twin.tokenizer) == [151643, 151645]
