"""Runs EnvrollRolloutFn through Miles' own code and reports what Miles made of each batch.

    python miles_judge.py <scenarios.json> <out.json>

Run in a subprocess by test_miles_pipeline.py, with a Miles source tree (and, where SGLang is not
installed, its stand-ins) on PYTHONPATH — kept out of the pytest process, whose fake ``miles``
package (miles_stub.py) would shadow the real one. For each scenario: Miles' argument parser
builds the args from the scenario's command line (``--envroll-*`` flags registered through the
``add_arguments`` hook, as a real launch does), Miles' loader builds the rollout function, and
the batch goes through ``postprocess_rollout_data``, ``log_rollout_data`` and
``convert_samples_to_train_data`` (train) or ``log_eval_rollout_data`` (eval). An exception is
reported as the scenario's result, so a test can assert which layer failed and why.
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from unittest.mock import patch


def _args(argv: list[str]):
    from miles.utils.arguments import parse_args

    with patch("sys.argv", ["train.py", *argv]):
        return parse_args()


def _data_source(args):
    from miles.utils.misc import load_function

    return load_function(args.data_source_path)(args)


def _samples(data) -> list:
    from miles.utils.types import Sample

    out = []
    for item in data:
        out.extend([item] if isinstance(item, Sample) else _samples(item))
    return out


def _train(args, fn, legacy: bool) -> dict:
    from miles.ray.rollout.metrics import log_rollout_data
    from miles.ray.rollout.rollout_data_conversion import postprocess_rollout_data
    from miles.ray.rollout.train_data_conversion import convert_samples_to_train_data
    from miles.rollout.base_types import RolloutFnTrainInput, call_rollout_fn
    from miles.rollout.inference_rollout.compatibility import call_rollout_function

    if legacy:
        output = call_rollout_fn(fn, args, 0, _data_source(args), evaluation=False)
    else:
        output = call_rollout_function(fn, RolloutFnTrainInput(rollout_id=0))
    groups = output.samples
    shape = [[len(e) if isinstance(e, list) else None for e in g] for g in groups]
    data, metadata = postprocess_rollout_data(args, groups, train_parallel_config={"dp_size": 1})
    log_rollout_data(0, args, data, output.metrics, 1.0)
    train = convert_samples_to_train_data(args, data, metadata, None, None)
    return {
        "shape": shape,
        "metrics": output.metrics,
        "samples": [
            {"group_index": s.group_index, "index": s.index, "rollout_id": s.rollout_id,
             "reward": s.get_reward_value(args), "empty": bool(s.metadata.get("envroll", {}).get("empty"))}
            for s in data
        ],  # fmt: skip
        "train": {k: train[k] for k in ("rewards", "raw_reward", "rollout_ids", "response_lengths", "loss_masks")},
    }


def _eval(args, fn, legacy: bool) -> dict:
    from miles.ray.rollout.metrics import log_eval_rollout_data
    from miles.rollout.base_types import RolloutFnEvalInput, call_rollout_fn
    from miles.rollout.inference_rollout.compatibility import call_rollout_function

    if legacy:
        output = call_rollout_fn(fn, args, 0, _data_source(args), evaluation=True)
    else:
        output = call_rollout_function(fn, RolloutFnEvalInput(rollout_id=0))
    logged = log_eval_rollout_data(0, args, output.data, output.metrics)
    return {"logged": {k: v for k, v in logged.items() if isinstance(v, (int, float))}}


def run(scenario: dict) -> dict:
    from miles.rollout.base_types import RolloutFnConstructorInput
    from miles.rollout.inference_rollout.compatibility import load_rollout_function
    from miles.utils.misc import load_function

    args = _args(scenario["argv"])
    legacy = scenario.get("legacy", False)
    if legacy:
        fn = load_function(args.rollout_function_path)
    else:
        fn = load_rollout_function(RolloutFnConstructorInput(args=args, data_source=_data_source(args)),
                                   args.rollout_function_path)  # fmt: skip
    try:
        return (_eval if scenario["kind"] == "eval" else _train)(args, fn, legacy)
    finally:
        from envroll_miles import rollout_fn

        for cached in [fn, *rollout_fn._legacy.values()]:
            dispose = getattr(cached, "dispose", None)
            if callable(dispose):
                dispose()


def main() -> int:
    scenarios = json.loads(open(sys.argv[1]).read())
    results = {}
    for name, scenario in scenarios.items():
        try:
            with patch.dict(os.environ, scenario.get("env", {})):
                results[name] = {"ok": True, **run(scenario)}
        except BaseException as err:  # the test asserts on the failure
            results[name] = {"ok": False, "error": f"{type(err).__name__}: {err}", "trace": traceback.format_exc()}
    with open(sys.argv[2], "w") as f:
        json.dump(results, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
