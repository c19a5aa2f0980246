"""Call EnvrollRolloutFn exactly as Miles would, without a trainer, and dump what it returns.

    python -m envroll_miles.dry_run --config env.toml --engine http://127.0.0.1:30000 \\
        --rollout-batch-size 4 --n-samples-per-prompt 4 [--eval] [--rollout-id 0] --dump out.json \\
        [--hf-checkpoint Qwen/Qwen3-8B] [--sglang-tokenizer-path DIR]

Uses Miles' own input/output types when Miles is importable, the stand-ins otherwise.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from urllib.parse import urlsplit

from .dump import dump_eval, dump_train
from .miles_defaults import EmptyDataSource, miles_args
from .miles_types import load_types
from .rollout_fn import EnvrollRolloutFn

# Miles' own flags, named as Miles names them: each is declared here once and reaches the args
# namespace unchanged, so a flag added here cannot be parsed and then forgotten.
MILES_FLAGS: dict[str, dict] = {
    "hf_checkpoint": {"default": None, "help": "the model (picks the renderer), as Miles' flag"},
    "sglang_tokenizer_path": {"default": None, "help": "tokenizer folder the engine uses, as Miles' flag"},
    "rollout_batch_size": {"type": int, "required": True},
    "n_samples_per_prompt": {"type": int, "default": 1},
    "n_samples_per_eval_prompt": {"type": int, "default": 1},
    "over_sampling_batch_size": {"type": int, "default": None},
    "rollout_max_response_len": {"type": int, "default": None},
    "rollout_temperature": {"type": float, "default": 1.0},
    "reward_key": {"default": None},
}


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m envroll_miles.dry_run", description=__doc__.split("\n")[0])
    p.add_argument("--config", help="envroll env.toml (starts a service)")
    p.add_argument("--url", help="use a running rollout service instead of --config")
    p.add_argument("--engine", required=True, help="SGLang engine or router URL")
    for name, spec in MILES_FLAGS.items():
        p.add_argument("--" + name.replace("_", "-"), **spec)
    p.add_argument("--state-dir", default=None)
    p.add_argument("--eval", action="store_true")
    p.add_argument("--rollout-id", type=int, default=0)
    p.add_argument("--dump", required=True, help="write the returned batch here as JSON")
    o = p.parse_args(argv)
    if not o.config and not o.url:
        p.error("one of --config or --url is required")
    return o


def build_args(o: argparse.Namespace):
    """The Miles args namespace the rollout function receives for these options."""
    engine = urlsplit(o.engine)
    return miles_args(
        rollout_global_dataset=False,
        envroll_config=o.config,
        envroll_url=o.url,
        envroll_state_dir=o.state_dir,
        sglang_router_ip=engine.hostname,
        sglang_router_port=engine.port,
        num_rollout=o.rollout_id + 1,
        **{name: getattr(o, name) for name in MILES_FLAGS},
    )


def main(argv: list[str] | None = None) -> int:
    o = parse(argv)
    args = build_args(o)
    types = load_types()
    fn = EnvrollRolloutFn(types.ConstructorInput(args=args, data_source=EmptyDataSource()))
    try:
        if o.eval:
            out = asyncio.run(fn(types.EvalInput(rollout_id=o.rollout_id)))
            path = dump_eval(args, o.rollout_id, out.data, out.metrics or {}, path=o.dump)
        else:
            out = asyncio.run(fn(types.TrainInput(rollout_id=o.rollout_id)))
            path = dump_train(args, o.rollout_id, out.samples, out.metrics or {}, path=o.dump)
    finally:
        fn.dispose()
    print(json.dumps({"dump": path, "miles_types": types.miles, "metrics": out.metrics}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
