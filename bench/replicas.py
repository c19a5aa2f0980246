"""groups/s of one train step with 1, 2, 3 rollout-service replicas (local processes) against the
built-in engine, and the CPU one rollout costs the replicas (user+sys of their `envroll serve`s).

    .venv/bin/python bench/replicas.py [--groups 24] [--n 4] [--replicas 1,2,3] [--tasks tool-math]

Prints one line per K and a JSON summary. On a machine with C cores, groups/s flattens at C
(every replica is one Node process); the per-rollout CPU is what sizes a cluster.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python" / "envroll_miles" / "src"))

from envroll_miles import EnvrollRolloutFn  # noqa: E402
from envroll_miles.miles_defaults import EmptyDataSource, miles_args  # noqa: E402
from envroll_miles.miles_types import load_types  # noqa: E402

TASKSETS = REPO / "packages" / "core" / "src" / "tasksets"
CLI = REPO / "packages" / "cli" / "bin" / "envroll.mjs"


def cpu_seconds(pid: int) -> float:
    """user + sys of a process and its reaped children (/proc/<pid>/stat fields 14-17)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def start_engine() -> tuple[subprocess.Popen, str]:
    cmd = ["node", str(CLI), "engine", "--port", "0", "--policy", "reference", "--token-latency-ms", "0"]
    proc = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.PIPE, text=True, start_new_session=True)
    assert proc.stdout is not None
    for line in proc.stdout:
        m = re.search(r"listening on (http://\S+)", line)
        if m:
            threading.Thread(target=lambda: [None for _ in proc.stdout], daemon=True).start()
            return proc, m.group(1)
    raise RuntimeError("the engine did not start")


def run(k: int, opts, engine: str, tmp: Path) -> dict:
    cfg = tmp / "env.toml"
    cfg.write_text(f'model = "Qwen/Qwen3-0.6B"\n[taskset]\nid = "{TASKSETS / opts.tasks / "index.ts"}"\n')
    host, port = engine.removeprefix("http://").split(":")
    args = miles_args(
        rollout_global_dataset=False, envroll_config=str(cfg), envroll_state_dir=str(tmp / f"state{k}"),
        sglang_router_ip=host, sglang_router_port=int(port), rollout_batch_size=opts.groups,
        n_samples_per_prompt=opts.n, num_rollout=10, rollout_max_response_len=256, envroll_replicas=k,
        envroll_replica_concurrency=opts.concurrency,
    )  # fmt: skip
    types = load_types()
    fn = EnvrollRolloutFn(types.ConstructorInput(args=args, data_source=EmptyDataSource()))
    try:
        asyncio.run(fn(types.TrainInput(rollout_id=0)))  # warm-up: renderer, tokenizer, JIT
        pids = [s.replica.process.pid for s in fn.pool.slots]
        cpu0 = sum(cpu_seconds(p) for p in pids)
        t0 = time.monotonic()
        out = asyncio.run(fn(types.TrainInput(rollout_id=1)))
        wall = time.monotonic() - t0
        cpu = sum(cpu_seconds(p) for p in pids) - cpu0
    finally:
        fn.dispose()
    rollouts = opts.groups * opts.n
    per_replica = [out.metrics[f"envroll/replica/{i}/groups"] for i in range(k)]
    return {"replicas": k, "groups": opts.groups, "n": opts.n, "wall_s": round(wall, 2),
            "groups_per_s": round(opts.groups / wall, 2), "replica_cpu_s": round(cpu, 2),
            "cpu_ms_per_rollout": round(1000 * cpu / rollouts, 1), "groups_by_replica": per_replica}  # fmt: skip


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--groups", type=int, default=24)
    p.add_argument("--n", type=int, default=4)
    p.add_argument("--concurrency", type=int, default=32, help="rollouts in flight per replica")
    p.add_argument("--replicas", default="1,2,3")
    p.add_argument("--tasks", default="tool-math")
    opts = p.parse_args()
    os.environ["ENVROLL_SERVE_COMMAND"] = f"node {CLI}"
    engine, url = start_engine()
    results = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for k in (int(x) for x in opts.replicas.split(",")):
                r = run(k, opts, url, Path(tmp))
                results.append(r)
                print(f"K={k}: {r['groups_per_s']} groups/s, {r['cpu_ms_per_rollout']} ms replica CPU per rollout, "
                      f"groups per replica {r['groups_by_replica']}", flush=True)  # fmt: skip
    finally:
        engine.terminate()
        engine.wait(10)
    print(json.dumps({"cores": os.cpu_count(), "load_1m": os.getloadavg()[0], "results": results}))


if __name__ == "__main__":
    main()
