"""groups/s of a train step with 1, 2, 3 rollout-service replicas (local processes) against the
built-in engine, side by side: the three pools run at once and their steps are interleaved
(rep r times K = 1, 2, 3 in a rotated order), so load drift on a shared machine hits each K alike.
Also the CPU one rollout costs the replicas (user+sys of their `envroll serve`s), the engine,
and this trainer process (reading and converting the groups: one process reads every replica).

    .venv/bin/python bench/replicas.py [--groups 48] [--n 4] [--in-flight 64] [--reps 3] [--replicas 1,2,3] [--tasks tool-math]

The rollouts in flight are the same for every K (--in-flight, split over the replicas), so only
the number of Node processes changes. Prints one line per measurement and a JSON summary (medians
per K, and groups/s relative to K = 1 per rep). On a machine with C cores groups/s flattens once
the replicas plus the engine fill the C cores; the per-rollout CPU is what sizes a cluster.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
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


def make_pool(k: int, opts, engine: str, tmp: Path) -> EnvrollRolloutFn:
    cfg = tmp / "env.toml"
    cfg.write_text(f'model = "Qwen/Qwen3-0.6B"\n[taskset]\nid = "{TASKSETS / opts.tasks / "index.ts"}"\n')
    host, port = engine.removeprefix("http://").split(":")
    args = miles_args(
        rollout_global_dataset=False, envroll_config=str(cfg), envroll_state_dir=str(tmp / f"state{k}"),
        sglang_router_ip=host, sglang_router_port=int(port), rollout_batch_size=opts.groups,
        n_samples_per_prompt=opts.n, num_rollout=10, rollout_max_response_len=256, envroll_replicas=k,
        envroll_replica_concurrency=max(opts.n, opts.in_flight // k),
    )  # fmt: skip
    return EnvrollRolloutFn(load_types().ConstructorInput(args=args, data_source=EmptyDataSource()))


def time_step(fn: EnvrollRolloutFn, rollout_id: int, engine_pid: int, opts) -> dict:
    pids = [s.replica.process.pid for s in fn.pool.slots]
    cpu0, eng0 = sum(cpu_seconds(p) for p in pids), cpu_seconds(engine_pid)
    t0, own0 = time.monotonic(), time.process_time()
    out = asyncio.run(fn(load_types().TrainInput(rollout_id=rollout_id)))
    wall, own = time.monotonic() - t0, time.process_time() - own0
    cpu, eng = sum(cpu_seconds(p) for p in pids) - cpu0, cpu_seconds(engine_pid) - eng0
    rollouts = opts.groups * opts.n
    return {"wall_s": round(wall, 2), "groups_per_s": round(opts.groups / wall, 2),
            "replica_cpu_ms_per_rollout": round(1000 * cpu / rollouts, 2),
            "engine_cpu_ms_per_rollout": round(1000 * eng / rollouts, 2),
            "trainer_cpu_ms_per_rollout": round(1000 * own / rollouts, 2),
            "turns_per_rollout": round(out.metrics.get("envroll/num_turns_mean", 0.0), 2),
            "groups_by_replica": [out.metrics[f"envroll/replica/{i}/groups"] for i in range(len(pids))]}  # fmt: skip


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--groups", type=int, default=48)
    p.add_argument("--n", type=int, default=4)
    p.add_argument("--in-flight", type=int, default=64, help="rollouts in flight in total, split over the replicas")
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--replicas", default="1,2,3")
    p.add_argument("--tasks", default="tool-math")
    opts = p.parse_args()
    os.environ["ENVROLL_SERVE_COMMAND"] = f"node {CLI}"
    ks = [int(x) for x in opts.replicas.split(",")]
    load_before = os.getloadavg()
    engine, url = start_engine()
    fns: dict[int, EnvrollRolloutFn] = {}
    runs: dict[int, list[dict]] = {k: [] for k in ks}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for k in ks:
                (Path(tmp) / f"k{k}").mkdir()
                fns[k] = make_pool(k, opts, url, Path(tmp) / f"k{k}")
                time_step(fns[k], 0, engine.pid, opts)  # warm-up: renderer, tokenizer, JIT
            for rep in range(opts.reps):
                for k in ks[rep % len(ks) :] + ks[: rep % len(ks)]:
                    r = time_step(fns[k], rep + 1, engine.pid, opts)
                    runs[k].append(r)
                    print(f"rep {rep} K={k}: {r['groups_per_s']} groups/s, {r['replica_cpu_ms_per_rollout']} ms replica CPU "
                          f"+ {r['engine_cpu_ms_per_rollout']} ms engine + {r['trainer_cpu_ms_per_rollout']} ms trainer CPU per rollout, groups per replica "
                          f"{r['groups_by_replica']}", flush=True)  # fmt: skip
    finally:
        for fn in fns.values():
            fn.dispose()
        engine.terminate()
        engine.wait(10)
    med = lambda k, key: statistics.median(r[key] for r in runs[k])  # noqa: E731
    summary = [{"replicas": k, "groups_per_s": med(k, "groups_per_s"),
                "vs_1_replica": round(statistics.median(a["groups_per_s"] / b["groups_per_s"] for a, b in zip(runs[k], runs[ks[0]])), 2),
                "replica_cpu_ms_per_rollout": med(k, "replica_cpu_ms_per_rollout"),
                "engine_cpu_ms_per_rollout": med(k, "engine_cpu_ms_per_rollout"),
                "trainer_cpu_ms_per_rollout": med(k, "trainer_cpu_ms_per_rollout"),
                "turns_per_rollout": med(k, "turns_per_rollout"),
                "reps_groups_per_s": [r["groups_per_s"] for r in runs[k]]} for k in ks]  # fmt: skip
    print(json.dumps({"cores": os.cpu_count(), "load_1m_before": round(load_before[0], 1),
                      "load_1m_after": round(os.getloadavg()[0], 1), "groups": opts.groups, "n": opts.n,
                      "in_flight": opts.in_flight, "tasks": opts.tasks, "results": summary}))  # fmt: skip


if __name__ == "__main__":
    main()
