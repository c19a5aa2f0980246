"""HTTP front end: SGLang's native endpoints on the stdlib ThreadingHTTPServer.

Why stdlib and not FastAPI/uvicorn: the engine is a single worker thread, so an async stack buys
nothing, and one thread per connection keeps /abort_request and /health responsive while a
/generate blocks. It also keeps the dependency list to torch + transformers + numpy.
"""

from __future__ import annotations

import json
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from .engine import Engine
from .pause import MODES
from .protocol import GenRequest, parse_generate, response_body
from .sampling import BadRequest, SamplingParams

HEALTH_TIMEOUT_S = 60.0


def _non_empty(body: dict, key: str) -> str:
    """The request's `key`, which must be a non-empty string (a 400 naming the key otherwise)."""
    value = body.get(key)
    if not isinstance(value, str) or not value:
        raise BadRequest(f"{key} must be a non-empty string")
    return value


class EngineHTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, addr, engine: Engine):
        super().__init__(addr, Handler)
        self.engine = engine


class Handler(BaseHTTPRequestHandler):
    server: EngineHTTPServer
    protocol_version = "HTTP/1.1"  # keep-alive for the TS client's connection pool

    def log_message(self, fmt, *args):  # quiet: tests and rollouts issue thousands of requests
        pass

    # ---- plumbing --------------------------------------------------------------------------------
    def _read_raw_body(self) -> bytes:
        """Consume the whole request body up front, whatever the route: bytes left unread on a
        keep-alive connection would be parsed as the next request."""
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            parts = []
            while True:
                size = int(self.rfile.readline().split(b";", 1)[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass  # trailers
                    return b"".join(parts)
                parts.append(self.rfile.read(size))
                self.rfile.readline()  # CRLF after each chunk
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n > 0 else b""

    def _body(self):
        if not self.raw_body:
            return {}
        try:
            return json.loads(self.raw_body)
        except json.JSONDecodeError as e:
            raise BadRequest(f"invalid JSON body: {e}") from None

    def _send(self, status: int, payload=None, *, text: str | None = None):
        if text is not None:
            data, ctype = text.encode(), "text/plain; charset=utf-8"
        elif payload is None:
            data, ctype = b"", "text/plain; charset=utf-8"
        else:
            data, ctype = json.dumps(payload).encode(), "application/json"
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _error(self, status: int, message: str):
        self._send(status, {"error": {"message": message}})

    def do_GET(self):
        self._dispatch("GET")

    def do_POST(self):
        self._dispatch("POST")

    def do_PUT(self):
        self._dispatch("PUT")

    def _dispatch(self, method: str):
        try:
            self.raw_body = self._read_raw_body()
        except ValueError:
            self.close_connection = True  # framing is lost; do not reuse this connection
            return self._error(400, "malformed request body framing")
        path = self.path.split("?", 1)[0].rstrip("/") or "/"
        route = ROUTES.get(path)
        if route is None:
            return self._error(404, f"Not Found: {path}")
        if method == "GET" and path in POST_ONLY:
            return self._error(405, f"Method Not Allowed: GET {path}")
        try:
            route(self)
        except (BadRequest, ValueError, TypeError) as e:  # SGLang maps ValueError to 400
            self._error(400, str(e))
        except (BrokenPipeError, ConnectionResetError):
            pass

    # ---- /generate -------------------------------------------------------------------------------
    def generate(self):
        eng = self.server.engine
        body = self._body()
        reqs, batch = parse_generate(body, eng.tokenizer, eng.vocab_size, eng.max_model_len)
        if body.get("stream"):
            return self._stream(reqs, batch)
        handles = eng.submit_all(reqs)
        for h in handles:
            h.done.wait()
        for h in handles:
            # An abort carrying a status (internal failure) is an HTTP error for non-streaming
            # requests, in SGLang's OpenAI-style error shape (spec A.5).
            code = (h.result.finish or {}).get("status_code")
            if code:
                msg = h.result.finish.get("message")
                return self._send(
                    code, {"object": "error", "message": msg, "type": str(code), "param": None, "code": code}
                )
        bodies = [response_body(eng.tokenizer, h.req, h.result) for h in handles]
        self._send(200, bodies if batch else bodies[0])

    def _stream(self, reqs: list[GenRequest], batch: bool):
        """SSE with cumulative chunks (SGLang's default mode), ending in `data: [DONE]`.
        Requests of a batch run one after another, so their chunks arrive in order."""
        eng = self.server.engine
        handles = eng.submit_all(reqs, stream=True)  # before the headers: a duplicate rid is a 400
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")  # no Content-Length: the stream ends with the socket
        self.end_headers()
        self.close_connection = True
        try:
            for i, h in enumerate(handles):
                while True:
                    snap = h.updates.get()
                    while not h.updates.empty():  # coalesce: chunks are cumulative anyway
                        snap = h.updates.get_nowait()
                    chunk = response_body(eng.tokenizer, h.req, snap)
                    if batch:
                        chunk["index"] = i
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                    self.wfile.flush()
                    if snap.finish is not None:
                        break
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            for h in handles:  # client went away: SGLang aborts streaming requests at once
                h.abort("client disconnected")

    # ---- control endpoints ---------------------------------------------------------------------
    def abort_request(self):
        body = self._body()
        self.server.engine.abort(str(body.get("rid") or ""), bool(body.get("abort_all", False)))
        self._send(200)

    def health(self):
        self._send(200)

    def health_generate(self):
        eng = self.server.engine
        req = GenRequest(rid=f"HEALTH_CHECK_{time.time_ns()}", input_ids=[0], params=SamplingParams(max_new_tokens=1))
        h = eng.submit(req)
        ok = h.done.wait(HEALTH_TIMEOUT_S) and (h.result.finish or {}).get("type") != "abort"
        self._send(200 if ok else 503)

    def get_model_info(self):
        eng = self.server.engine
        cfg = eng.model.config
        self._send(
            200,
            {
                "model_path": eng.model_path,
                "tokenizer_path": eng.tokenizer_path,
                "is_generation": True,
                "preferred_sampling_params": None,
                "weight_version": eng.weight_version,
                "has_image_understanding": False,
                "has_audio_understanding": False,
                "model_type": getattr(cfg, "model_type", None),
                "architectures": list(getattr(cfg, "architectures", None) or [type(eng.model).__name__]),
            },
        )

    def get_weight_version(self):
        self._send(200, {"weight_version": self.server.engine.weight_version})

    def get_server_info(self):
        eng = self.server.engine
        tps = eng.tokens_generated / eng.generation_seconds if eng.generation_seconds else 0.0
        self._send(
            200,
            {
                "model_path": eng.model_path,
                "weight_version": eng.weight_version,
                "max_model_len": eng.max_model_len,
                "vocab_size": eng.vocab_size,
                "eos_token_ids": eng.eos_ids,
                "original_logprob": eng.original_logprob,
                "tokens_generated": eng.tokens_generated,
                "generation_tokens_per_s": tps,
                "live_rids": eng.live(),
            },
        )

    def models(self):
        eng = self.server.engine
        card = {
            "id": eng.model_path,
            "object": "model",
            "created": int(time.time()),
            "owned_by": "sglang",
            "root": eng.model_path,
            "parent": None,
            "max_model_len": eng.max_model_len,
        }
        self._send(200, {"object": "list", "data": [card]})

    def flush_cache(self):
        if self.server.engine.busy():
            return self._send(400, text="Cache not flushed: requests are running or waiting.")
        self._send(200, text="Cache flushed.")

    def update_weight_version(self):
        eng = self.server.engine
        body = self._body()
        new = _non_empty(body, "new_version")
        if body.get("abort_all_requests", True):  # defaults to aborting, as in current SGLang
            eng.abort(abort_all=True, message="Aborted by /update_weight_version")
        eng.weight_version = new
        self._send(200, {"success": True, "message": "Weight version updated.", "new_version": new})

    def update_weights_from_disk(self):
        eng = self.server.engine
        body = self._body()
        path = _non_empty(body, "model_path")
        version = body.get("weight_version")
        n_aborted = (
            eng.abort(abort_all=True, message="Aborted by weight update") if body.get("abort_all_requests") else 0
        )
        try:
            new = eng.update_weights(path, version)
        except Exception as e:  # a bad folder keeps the old weights serving
            return self._send(
                400, {"success": False, "message": f"Failed to load weights from {path}: {e}", "num_paused_requests": 0}
            )
        self._send(
            200,
            {
                "success": True,
                "message": f"Loaded weights from {path}; weight_version={new}",
                "num_paused_requests": n_aborted,
            },
        )

    def pause_generation(self):
        mode = self._body().get("mode", "abort")
        if mode not in MODES:
            raise BadRequest(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
        self.server.engine.pause(mode)
        self._send(200, {"message": "Generation paused successfully.", "status": "ok"})

    def continue_generation(self):
        self.server.engine.gate.resume()
        self._send(200, {"message": "Generation continued successfully.", "status": "ok"})


ROUTES = {
    "/generate": Handler.generate,
    "/abort_request": Handler.abort_request,
    "/health": Handler.health,
    "/health_generate": Handler.health_generate,
    "/get_model_info": Handler.get_model_info,
    "/get_weight_version": Handler.get_weight_version,
    "/get_server_info": Handler.get_server_info,
    "/v1/models": Handler.models,
    "/flush_cache": Handler.flush_cache,
    "/update_weight_version": Handler.update_weight_version,
    "/update_weights_from_disk": Handler.update_weights_from_disk,
    "/pause_generation": Handler.pause_generation,
    "/continue_generation": Handler.continue_generation,
}
POST_ONLY = {
    "/generate",
    "/abort_request",
    "/update_weight_version",
    "/update_weights_from_disk",
    "/pause_generation",
    "/continue_generation",
}
