"""The generation engine: one model, one worker thread, abortable requests.

Requests are serialized on a single-thread executor (2 CPU cores gain nothing from batching a
model this small), so HTTP threads stay free to answer /health and /abort_request while a
generation runs. Weight reloads go through the same executor, so they never race a forward.
"""

from __future__ import annotations

import queue
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace

import torch

from .model import LoadedModel, eos_token_ids, load_checkpoint
from .pause import PauseGate
from .protocol import GenRequest, GenResult
from .sampling import BadRequest, choose_next, make_generator


class Handle:
    """A submitted request: abort flag, live result, optional stream of snapshots."""

    def __init__(self, req: GenRequest, stream: bool):
        self.req = req
        self.result = GenResult()
        self.abort_message: str | None = None
        self.updates: queue.Queue | None = queue.Queue() if stream else None
        self.done = threading.Event()
        self.started = False  # guarded by Engine._lock; a queued request can be aborted at once
        self.received_at = time.monotonic()

    def abort(self, message: str) -> None:
        if self.abort_message is None:
            self.abort_message = message

    def _publish(self) -> None:
        if self.updates is not None:
            r = self.result  # copy: the worker keeps appending while the HTTP thread serializes
            self.updates.put(
                replace(
                    r,
                    output_ids=list(r.output_ids),
                    output_logprobs=list(r.output_logprobs),
                    output_top=list(r.output_top),
                )
            )


class Engine:
    def __init__(self, loaded: LoadedModel, *, original_logprob: bool = False, weight_version: str = "default"):
        self.model = loaded.model
        self.tokenizer = loaded.tokenizer
        self.model_path = loaded.model_path
        self.tokenizer_path = loaded.tokenizer_path
        self.original_logprob = original_logprob
        self.weight_version = weight_version
        self.eos_ids = eos_token_ids(self.model, self.tokenizer)
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="envroll-gen")
        self._lock = threading.Lock()
        self._live: dict[str, Handle] = {}  # submitted, not finished; a live rid is unique
        self.gate = PauseGate()
        # Held around every forward and every weight swap: while generation is paused the worker
        # thread waits outside it, so a reload can run then without the executor (it is blocked).
        self._forward_lock = threading.Lock()
        self.tokens_generated = 0
        self.generation_seconds = 0.0

    # ---- properties the server reports -------------------------------------------------------
    @property
    def vocab_size(self) -> int:
        return int(self.model.config.vocab_size)

    @property
    def max_model_len(self) -> int:
        return int(getattr(self.model.config, "max_position_embeddings", 32768))

    def busy(self) -> bool:
        with self._lock:
            return bool(self._live)

    def live(self) -> dict[str, list[str]]:
        """rids of requests running / waiting, for /get_server_info (lets clients and tests
        know a request has reached the engine before they abort it)."""
        with self._lock:
            hs = list(self._live.values())
        return {"running": [h.req.rid for h in hs if h.started], "waiting": [h.req.rid for h in hs if not h.started]}

    # ---- requests ------------------------------------------------------------------------------
    def submit(self, req: GenRequest, *, stream: bool = False) -> Handle:
        return self.submit_all([req], stream=stream)[0]

    def submit_all(self, reqs: list[GenRequest], *, stream: bool = False) -> list[Handle]:
        """Queue a request's (sub-)requests. SGLang keeps one state per rid and refuses a rid
        that is still live ("Duplicate request ID detected"), so none is queued then."""
        hs = [Handle(r, stream) for r in reqs]
        with self._lock:
            live = {h.req.rid for h in self._live.values()}
            for h in hs:
                if h.req.rid in live:
                    raise BadRequest(f"Duplicate request ID detected: {h.req.rid}")
            for h in hs:
                self._live[f"{id(h)}"] = h
        for h in hs:
            self._executor.submit(self._run_safely, h)
        return hs

    def abort(self, rid: str = "", abort_all: bool = False, message: str = "Aborted by /abort_request") -> int:
        """Abort as SGLang does: its TokenizerManager (one tokenizer worker) forwards an abort
        only for a live rid it knows, and the scheduler then stops every live request whose rid
        starts with it. An empty or unknown rid without abort_all aborts nothing. Returns the
        number aborted."""
        if not abort_all and not rid:
            return 0
        with self._lock:
            if not abort_all and all(h.req.rid != rid for h in self._live.values()):
                return 0
            hits = [h for h in self._live.values() if abort_all or h.req.rid.startswith(rid)]
            queued = [h for h in hits if not h.started]
            for h in queued:  # never reaches the worker: answer now, not after the running request
                self._live.pop(f"{id(h)}", None)
        for h in hits:
            h.abort(message)
        for h in queued:
            h.result.finish = _abort_finish(message)
            self._complete(h)
        return len(hits)

    def _complete(self, h: Handle) -> None:
        h.result.e2e_latency = time.monotonic() - h.received_at
        if not h.result.version_spans:  # never started (aborted while queued): no tokens to attribute
            h.result.weight_version = self.weight_version
        h._publish()
        h.done.set()

    def _run_safely(self, h: Handle) -> None:
        self.gate.wait_open(lambda: h.abort_message is not None)  # paused: new requests wait before prefill
        with self._lock:
            if f"{id(h)}" not in self._live:
                return  # aborted while queued; already answered
            h.started = True
        try:
            self._generate(h)
        except Exception as e:  # never leave a client waiting forever on a crashed request
            h.result.finish = {
                "type": "abort",
                "message": f"internal error: {e!r}",
                "status_code": 500,
                "err_type": None,
            }
        finally:
            with self._lock:
                self._live.pop(f"{id(h)}", None)
            self._complete(h)

    def _note_version(self, res: GenResult) -> None:
        """Tokens from here on come from the serving weights: record a span when they changed
        mid-request (SGLang reports only the version at the end; the spans are envroll's)."""
        n = len(res.output_ids)
        if res.weight_version != self.weight_version:
            res.version_spans.append({"version": self.weight_version, "start": n})
            res.weight_version = self.weight_version

    def _generate(self, h: Handle) -> None:
        req, res, p = h.req, h.result, h.req.params
        gen = make_generator(p.sampling_seed)
        stop_ids = set(p.stop_token_ids) | (set() if p.ignore_eos else set(self.eos_ids))
        # min_new_tokens hides every stop id until enough tokens exist (SGLang's penalizer).
        blocked = sorted(stop_ids)
        L = len(req.input_ids)
        want_input = req.return_logprob and req.logprob_start_len >= 0
        # Logits rows needed: p-1 for each scored prompt position p > logprob_start_len, plus the last row.
        first_row = req.logprob_start_len if want_input else L - 1
        t0 = time.monotonic()
        with torch.inference_mode():
            with self._forward_lock:  # the version is read with the weights it names
                res.weight_version = self.weight_version
                res.version_spans = [{"version": self.weight_version, "start": 0}]
                out = self.model(input_ids=torch.tensor([req.input_ids]), use_cache=True, logits_to_keep=L - first_row)
            logits = out.logits[0].float()
            if want_input:
                self._score_prompt(req, res, logits)
            past, row = out.past_key_values, logits[-1]
            for step in range(p.max_new_tokens):
                if h.abort_message is not None:
                    res.finish = _abort_finish(h.abort_message)
                    break
                c = choose_next(
                    row,
                    p,
                    gen,
                    blocked=blocked if step < p.min_new_tokens else None,
                    original_logprob=self.original_logprob,
                    top_logprobs_num=req.top_logprobs_num if req.return_logprob else 0,
                )
                res.output_ids.append(c.token)
                res.output_logprobs.append(c.logprob)
                res.output_top.append(c.top)
                self.tokens_generated += 1
                res.finish = self._finish_after(res, p, step, stop_ids)
                if res.finish is not None:
                    break  # the final chunk is published by _complete, with e2e_latency set
                h._publish()
                resumed = self.gate.hold(lambda: h.abort_message is not None)
                with self._forward_lock:
                    if resumed is not None and resumed.recompute and res.weight_version != self.weight_version:
                        # retract: SGLang frees the KV cache and re-prefills prompt + output so far,
                        # so the rest of the turn is exactly the new weights' continuation.
                        out = self.model(input_ids=torch.tensor([req.input_ids + res.output_ids]), use_cache=True)
                    else:  # in_place keeps the KV cache the old weights computed
                        out = self.model(input_ids=torch.tensor([[c.token]]), past_key_values=past, use_cache=True)
                    self._note_version(res)
                past, row = out.past_key_values, out.logits[0, -1].float()
            if res.finish is None:  # max_new_tokens == 0: SGLang reports a length finish
                res.finish = {"type": "length", "length": p.max_new_tokens}
        self.generation_seconds += time.monotonic() - t0

    def _finish_after(self, res: GenResult, p, step: int, stop_ids: set[int]) -> dict | None:
        n = len(res.output_ids)
        # Length is checked before stop ids: a stop token sampled as the last allowed token
        # still reports "length", as SGLang's check_finished does.
        if n >= p.max_new_tokens:
            return {"type": "length", "length": p.max_new_tokens}
        tok = res.output_ids[-1]
        if tok in stop_ids and step >= p.min_new_tokens:
            return {"type": "stop", "matched": tok}
        if p.stop and n >= p.min_new_tokens:
            # Only the tail can hold a new match (an older one would have stopped us already);
            # decoding everything each step would make long generations quadratic.
            tail = res.output_ids[-(max(len(s) for s in p.stop) + 8) :]
            text = self.tokenizer.decode(tail, skip_special_tokens=p.skip_special_tokens)
            for s in p.stop:
                if s in text:
                    res.matched_stop_str = s
                    return {"type": "stop", "matched": s}
        return None

    def _score_prompt(self, req: GenRequest, res: GenResult, logits: torch.Tensor) -> None:
        """input_token_logprobs for prompt positions logprob_start_len..L-1, same definition as
        output logprobs (temperature-scaled unless original_logprob). As SGLang, the entry at
        logprob_start_len itself is None whatever the position: scoring starts from its logits,
        which predict the next token (a caller wanting token k's logprob starts at k - 1)."""
        p = req.params
        temp = 1.0 if self.original_logprob else p.temperature
        lps = torch.log_softmax(logits / temp, dim=-1)
        start = req.logprob_start_len
        for pos in range(start, len(req.input_ids)):
            if pos == start:
                res.input_logprobs.append(None)
                res.input_top.append(None)
                continue
            r = lps[pos - 1 - start]
            res.input_logprobs.append(float(r[req.input_ids[pos]]))
            if req.top_logprobs_num > 0:
                vals, ids = torch.topk(r, req.top_logprobs_num)
                res.input_top.append([(float(v), int(i)) for v, i in zip(vals, ids, strict=True)])

    # ---- admin ---------------------------------------------------------------------------------
    def run_exclusive(self, fn) -> Future:
        """Run fn on the generation thread, after whatever is queued before it."""
        return self._executor.submit(fn)

    def update_weights(self, model_path: str, weight_version: str | None) -> str:
        """/update_weights_from_disk. Not paused: on the generation thread, after what is queued
        before it. Paused: right away (the worker waits at the gate, outside any forward), so the
        requests held by the pause run on the new weights when generation continues."""
        if self.gate.paused:
            with self._forward_lock:
                return self.reload_weights(model_path, weight_version)
        return self.run_exclusive(lambda: self.reload_weights(model_path, weight_version)).result()

    def pause(self, mode: str) -> int:
        """/pause_generation. Every mode holds new and queued requests before prefill and running
        ones between tokens; `abort` also aborts everything in flight (as SGLang's tokenizer
        manager does), `retract` re-prefills a held request on resume, `in_place` keeps its KV."""
        self.gate.pause(mode)
        if mode != "abort":
            return 0
        n = self.abort(abort_all=True, message="Abort for pause_generation")
        # As SGLang, answer once nothing runs any more (requests arriving now wait at the gate).
        while any(h.started for h in list(self._live.values())):
            time.sleep(0.01)
        return n

    def reload_weights(self, model_path: str, weight_version: str | None) -> str:
        """Load a save_pretrained folder in place of the current weights (call via
        run_exclusive). Without an explicit version, numeric versions are bumped by one and
        "default" becomes "1", so every reload is visible in weight_version."""
        model = load_checkpoint(model_path)
        if int(model.config.vocab_size) != self.vocab_size:
            raise ValueError(f"vocab size {model.config.vocab_size} != serving model's {self.vocab_size}")
        self.model = model
        self.model_path = model_path
        self.weight_version = weight_version if weight_version is not None else bump_version(self.weight_version)
        return self.weight_version

    def shutdown(self) -> None:
        self.gate.resume()
        self.abort(abort_all=True)
        self._executor.shutdown(wait=True, cancel_futures=False)


def bump_version(v: str) -> str:
    return str(int(v) + 1) if v.isdigit() else "1"


def _abort_finish(message: str) -> dict:
    return {"type": "abort", "message": message, "status_code": None, "err_type": None}
