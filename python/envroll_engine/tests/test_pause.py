"""/pause_generation and /continue_generation around a weight update (SGLang's RL flow): nothing
in flight is lost, requests held by the pause run on the new weights, and a request resumed by
`retract` reports the version of every token, each exact for the weights that sampled it."""

from __future__ import annotations

import copy
import threading
import time

import pytest
import torch
from engine_spawn import SHARES_SESSION_ENGINES, Spawned

from envroll_engine.model import save
from envroll_engine.scoring import token_logprobs

pytestmark = SHARES_SESSION_ENGINES

PROMPT = [9707, 11, 1879, 0, 358, 1079]
LONG = {"max_new_tokens": 150, "ignore_eos": True, "sampling_seed": 3}


@pytest.fixture(scope="module")
def paused_engine():
    spawned = Spawned("--weight-version", "0")
    yield spawned.ready()
    spawned.stop()


@pytest.fixture(scope="module")
def new_weights(twin, tmp_path_factory):
    """A perturbed copy of the tiny model, saved as version "1"'s folder."""
    model = copy.deepcopy(twin.model)
    with torch.no_grad():
        for p in model.parameters():
            p.add_(torch.randn(p.shape, generator=torch.Generator().manual_seed(7)) * 0.05)
    out = tmp_path_factory.mktemp("v1")
    save(model, twin.tokenizer, out)
    return model, out


def in_thread(engine, body: dict) -> tuple[threading.Thread, dict]:
    box: dict = {}
    t = threading.Thread(target=lambda: box.setdefault("out", engine.generate(body)), daemon=True)
    t.start()
    return t, box


def wait_running(engine, rid: str) -> None:
    deadline = time.monotonic() + 60
    while rid not in engine.get("/get_server_info")[1]["live_rids"]["running"]:
        assert time.monotonic() < deadline, f"{rid} never ran"
        time.sleep(0.02)
    base = engine.get("/get_server_info")[1]["tokens_generated"]
    while engine.get("/get_server_info")[1]["tokens_generated"] < base + 3:  # a few tokens in
        assert time.monotonic() < deadline
        time.sleep(0.02)


def update(engine, folder, version: str) -> None:
    status, body = engine.post("/update_weights_from_disk", {"model_path": str(folder), "weight_version": version})
    assert status == 200 and body["success"], body


def test_retract_update_continue_keeps_the_request_and_attributes_every_token(paused_engine, twin, new_weights):
    model_v1, folder = new_weights
    t, box = in_thread(
        paused_engine, {"input_ids": PROMPT, "rid": "held", "return_logprob": True, "sampling_params": LONG}
    )
    wait_running(paused_engine, "held")
    assert paused_engine.post("/pause_generation", {"mode": "retract"}) == (
        200,
        {"message": "Generation paused successfully.", "status": "ok"},
    )
    # A turn that reaches the engine while it is paused waits, then runs on the new weights.
    t2, box2 = in_thread(
        paused_engine,
        {"input_ids": PROMPT, "rid": "waiting", "return_logprob": True, "sampling_params": {**LONG, "max_new_tokens": 6}},
    )
    time.sleep(0.3)
    assert "out" not in box and "out" not in box2, "nothing progresses while paused"
    update(paused_engine, folder, "1")  # must not wait for the held request (it would never finish)
    assert paused_engine.post("/continue_generation")[0] == 200
    t.join(120), t2.join(120)
    held, waiting = box["out"], box2["out"]

    assert waiting["meta_info"]["weight_version"] == "1"
    assert "weight_versions" not in waiting["meta_info"]  # one version: SGLang's plain shape
    ids = waiting["output_ids"]
    ref = token_logprobs(model_v1, PROMPT + ids, len(PROMPT))
    got = torch.tensor([x[0] for x in waiting["meta_info"]["output_token_logprobs"]])
    assert (got - ref).abs().max().item() < 1e-5

    meta = held["meta_info"]
    assert meta["finish_reason"]["type"] == "length" and len(held["output_ids"]) == LONG["max_new_tokens"]
    spans = meta["weight_versions"]
    assert [s["version"] for s in spans] == ["0", "1"] and meta["weight_version"] == "1"
    assert spans[0]["start"] == 0 and spans[0]["end"] == spans[1]["start"] and spans[1]["end"] == 150
    cut = spans[1]["start"]
    assert 3 <= cut < 150
    lps = torch.tensor([x[0] for x in meta["output_token_logprobs"]])
    seq = PROMPT + held["output_ids"]
    old = token_logprobs(twin.model, seq, len(PROMPT))
    new = token_logprobs(model_v1, seq, len(PROMPT))
    # Before the cut the old weights sampled, after it the new ones, from a re-prefilled prefix.
    assert (lps[:cut] - old[:cut]).abs().max().item() < 1e-5
    assert (lps[cut:] - new[cut:]).abs().max().item() < 1e-5
    assert (lps[cut:] - old[cut:]).abs().max().item() > 1e-2, "the update changed the logprobs"


def test_abort_mode_aborts_running_and_holds_new_requests(paused_engine, new_weights):
    _, folder = new_weights
    t, box = in_thread(paused_engine, {"input_ids": PROMPT, "rid": "running", "sampling_params": LONG})
    wait_running(paused_engine, "running")
    assert paused_engine.post("/pause_generation", {"mode": "abort"})[0] == 200
    t.join(30)  # the pause answers once nothing runs: the request is back, aborted, partial
    assert box["out"]["meta_info"]["finish_reason"]["type"] == "abort"
    assert 0 < len(box["out"]["output_ids"]) < LONG["max_new_tokens"]
    t2, box2 = in_thread(paused_engine, {"input_ids": PROMPT, "sampling_params": {"max_new_tokens": 4}})
    time.sleep(0.3)
    assert "out" not in box2
    update(paused_engine, folder, "2")
    assert paused_engine.post("/continue_generation")[0] == 200
    t2.join(60)
    assert box2["out"]["meta_info"]["weight_version"] == "2"
    assert box2["out"]["meta_info"]["finish_reason"]["type"] == "length"


def test_pause_rejects_an_unknown_mode(paused_engine):
    status, body = paused_engine.post("/pause_generation", {"mode": "sideways"})
    assert status == 400 and "mode must be one of abort, retract, in_place" in body["error"]["message"]
