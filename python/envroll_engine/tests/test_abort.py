"""/abort_request: partial results with finish abort, exact live rids (as SGLang), queued requests,
and /health staying responsive while a generation runs."""

from __future__ import annotations

import threading
import time

from engine_spawn import SHARES_SESSION_ENGINES

pytestmark = SHARES_SESSION_ENGINES

LONG = {"max_new_tokens": 4000, "ignore_eos": True, "sampling_seed": 1}


def start_long(engine, rid: str, **extra) -> tuple[threading.Thread, dict]:
    box: dict = {}

    def run():
        box["out"] = engine.generate(
            {"input_ids": [1, 2, 3], "rid": rid, "return_logprob": True, "sampling_params": LONG, **extra}
        )

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t, box


def wait_for_tokens(engine, at_least: int, baseline: int, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if engine.get("/get_server_info")[1]["tokens_generated"] >= baseline + at_least:
            return
        time.sleep(0.05)
    raise AssertionError("generation did not progress")


def wait_for_rid(engine, rid: str, state: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if rid in engine.get("/get_server_info")[1]["live_rids"][state]:
            return
        time.sleep(0.05)
    raise AssertionError(f"{rid} never became {state}")


def tokens_so_far(engine) -> int:
    return engine.get("/get_server_info")[1]["tokens_generated"]


def assert_aborted_partial(out: dict) -> None:
    meta = out["meta_info"]
    assert meta["finish_reason"]["type"] == "abort"
    assert 0 < len(out["output_ids"]) < LONG["max_new_tokens"]
    assert len(meta["output_token_logprobs"]) == len(out["output_ids"]) == meta["completion_tokens"]


def test_abort_by_exact_rid_returns_partial_tokens_a_mere_prefix_aborts_nothing(engine):
    # SGLang's TokenizerManager (one tokenizer worker) forwards an abort only for a live rid it
    # knows; the scheduler then matches by prefix. So "abortme-" (no such live rid) is dropped.
    base = tokens_so_far(engine)
    t, box = start_long(engine, "abortme-123")
    wait_for_tokens(engine, 5, base)
    t0 = time.monotonic()
    assert engine.get("/health")[0] == 200
    assert time.monotonic() - t0 < 5.0  # health is not stuck behind the generation
    assert engine.post("/abort_request", {"rid": "abortme-"}) == (200, None)
    time.sleep(0.3)
    assert t.is_alive(), "a prefix that is not a live rid must abort nothing"
    assert engine.post("/abort_request", {"rid": "abortme-123"}) == (200, None)
    t.join(30)
    assert not t.is_alive()
    assert_aborted_partial(box["out"])


def test_live_rid_is_refused_as_duplicate(engine):
    base = tokens_so_far(engine)
    t, box = start_long(engine, "twin")
    wait_for_tokens(engine, 2, base)
    status, body = engine.post("/generate", {"input_ids": [1, 2, 3], "rid": "twin"})
    assert status == 400 and "Duplicate request ID detected: twin" in str(body)
    engine.post("/abort_request", {"rid": "twin"})
    t.join(30)
    assert box["out"]["meta_info"]["finish_reason"]["type"] == "abort"


def test_abort_all_and_queued_request(engine):
    base = tokens_so_far(engine)
    t1, box1 = start_long(engine, "running-1")
    wait_for_tokens(engine, 3, base)
    t2, box2 = start_long(engine, "queued-2", logprob_start_len=0)  # queued behind running-1
    wait_for_rid(engine, "queued-2", "waiting")
    engine.post("/abort_request", {"rid": "queued-2"})
    t2.join(10)
    assert not t2.is_alive(), "a queued request must be answered at once when aborted"
    assert box2["out"]["meta_info"]["finish_reason"]["type"] == "abort"
    assert box2["out"]["output_ids"] == [] and box2["out"]["meta_info"]["input_token_logprobs"] == []
    assert t1.is_alive()
    engine.post("/abort_request", {"abort_all": True})
    t1.join(30)
    assert_aborted_partial(box1["out"])


def test_empty_rid_without_abort_all_is_ignored(engine):
    base = tokens_so_far(engine)
    t, out = start_long(engine, "survivor")
    wait_for_tokens(engine, 2, base)
    assert engine.post("/abort_request", {"rid": ""})[0] == 200
    time.sleep(0.3)
    assert t.is_alive()
    assert "survivor" in engine.get("/get_server_info")[1]["live_rids"]["running"]
    engine.post("/abort_request", {"rid": "survivor"})
    t.join(30)
    assert out["out"]["meta_info"]["finish_reason"]["type"] == "abort"


def _open_stream(engine, rid: str):
    import http.client
    import json

    conn = http.client.HTTPConnection(engine.host, engine.port, timeout=60)
    conn.request(
        "POST",
        "/generate",
        body=json.dumps({"input_ids": [1, 2, 3], "rid": rid, "stream": True, "sampling_params": LONG}),
        headers={"Content-Type": "application/json"},
    )
    resp = conn.getresponse()
    assert resp.status == 200
    return conn, resp


def test_aborted_stream_ends_with_abort_chunk_then_done(engine):
    import json

    conn, resp = _open_stream(engine, "stream-abort")
    first = resp.readline()  # the first cumulative chunk: generation is under way
    assert first.startswith(b"data: {")
    engine.post("/abort_request", {"rid": "stream-abort"})
    events = [e for e in (first + resp.read()).decode().split("\n\n") if e]
    conn.close()
    assert events[-1] == "data: [DONE]"
    last = json.loads(events[-2][len("data: ") :])
    assert last["meta_info"]["finish_reason"]["type"] == "abort" and last["output_ids"]


def test_stream_client_disconnect_aborts_request(engine):
    import json
    import socket

    body = json.dumps({"input_ids": [1, 2, 3], "rid": "stream-gone", "stream": True, "sampling_params": LONG})
    sock = socket.create_connection((engine.host, engine.port), timeout=60)
    sock.sendall(
        f"POST /generate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n{body}".encode()
    )
    got = b""
    while b"data: {" not in got:  # wait for the first chunk: generation is under way
        chunk = sock.recv(65536)
        assert chunk, "stream closed early"
        got += chunk
    sock.close()  # hang up mid-stream
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        live = engine.get("/get_server_info")[1]["live_rids"]
        if "stream-gone" not in live["running"] + live["waiting"]:
            return
        time.sleep(0.1)
    raise AssertionError("request kept running after the client disconnected")
