/**
 * Issue 15.11 through the real CLI: `envroll engine --fault-rate 0.1 --faults
 * 5xx,429,reset,stall,abort` and `envroll eval reverse-text --engine URL` finish with every
 * rollout scored or carrying a typed error. The engine's stall holds a request for 10 minutes, so
 * the run ending at all proves the deadline cut it; aborts are retried, not left on the traces.
 */
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { parse } from "smol-toml";
import { readTraces } from "../../packages/core/src/outputs/traces-file.ts";
import { evalArgs, onlyRunDir, runCli, startCli, waitFor } from "./cli-helpers.ts";

const KINDS = ["5xx", "429", "reset", "stall", "abort"] as const;
/** Errors a rollout may end with here: each names the boundary that failed. */
const TYPED = new Set([
  "ProviderHttpError",
  "ProviderConnectionError",
  "ProviderTimeoutError",
  "TurnAbortedError",
]);

test(
  "eval --engine under 10 % faults of five kinds: every rollout scored or typed-errored, stalls cut, aborts retried",
  { timeout: 120_000 },
  async () => {
    // Seed 108: the first 25 /generate requests (20 rollouts plus one retry per fault) hold one
    // fault of each kind, whatever order the rollouts arrive in.
    const engine = startCli([
      "engine",
      "--port",
      "0",
      "--policy",
      "reference",
      "--fault-rate",
      "0.1",
      "--faults",
      KINDS.join(","),
      "--seed",
      "108",
    ]);
    try {
      let said = "";
      engine.child.stdout!.on("data", (d) => {
        said += d;
      });
      await waitFor(() => /listening on \S+\n/.test(said), 60_000, "the engine to listen");
      const url = /listening on (\S+)\n/.exec(said)![1]!;
      const out = mkdtempSync(join(tmpdir(), "envroll-faults-"));
      // A small deadline keeps the test short: 2 s + 1,024 tokens × 1 ms.
      const r = await runCli([
        ...evalArgs(10, 2),
        "--engine",
        url,
        // The stand-in tokenizes as Qwen3; its served name picks no renderer.
        "--model",
        "Qwen/Qwen3-0.6B",
        "-o",
        out,
        "--client.deadline.base",
        "2",
        "--client.deadline.per_token",
        "0.001",
      ]);
      assert.equal(r.code, 0, r.stderr);
      const stats = (await (await fetch(`${url}/engine_stats`)).json()) as { faults: Record<string, number> };
      for (const k of KINDS)
        assert.ok(stats.faults[k]! > 0, `no ${k} fault fired: ${JSON.stringify(stats.faults)}`);

      const traces = readTraces(join(onlyRunDir(out), "traces.jsonl")).traces;
      assert.equal(traces.length, 20);
      for (const t of traces) {
        const where = `task ${t.task_index} rollout ${t.rollout_index}`;
        for (const e of t.errors) assert.ok(TYPED.has(e.type), `${where}: untyped error ${e.type}`);
        if (t.errors.length === 0) assert.equal(typeof t.reward, "number", `${where}: not scored`);
      }
      // Each injected fault cost a retry that the summary reports, stalls included (as timeouts).
      const line = /model requests retried: (\d+) \((.*)\)/.exec(r.stdout);
      assert.ok(line, r.stdout);
      const retried = Object.fromEntries(
        line[2]!.split(", ").map((p) => [p.split(" ")[0]!, Number(p.split(" ")[1])]),
      );
      assert.ok(retried.abort! >= 1 && retried.abort! <= stats.faults.abort!, line[0]);
      assert.ok(retried.timeout! >= stats.faults.stall!, line[0]);
      const errored = traces.filter((t) => t.errors.length > 0).length;
      console.log(JSON.stringify({ suite: "eval-cli-faults", faults: stats.faults, retried, errored }));
      const aborted = traces.filter((t) => t.errors.some((e) => e.type === "TurnAbortedError")).length;
      assert.ok(aborted < stats.faults.abort!, "no engine abort was retried");
    } finally {
      engine.child.kill("SIGTERM");
      await engine.done;
    }
  },
);

test("client.deadline: the defaults are shown by --dry-run; a bad value names its key", async () => {
  const url = "http://127.0.0.1:9";
  const shown = await runCli(["eval", "reverse-text", "--engine", url, "--dry-run"]);
  assert.equal(shown.code, 0, shown.stderr);
  assert.deepEqual({ ...(parse(shown.stdout) as any).client.deadline }, { base: 30, per_token: 0.05 });
  const bad = await runCli([
    "eval",
    "reverse-text",
    "--engine",
    url,
    "--client.deadline.per_token",
    "-1",
    "--dry-run",
  ]);
  assert.equal(bad.code, 2, bad.stderr);
  assert.match(bad.stderr, /client\.deadline\.per_token: expected a number of seconds ≥ 0/);
});
