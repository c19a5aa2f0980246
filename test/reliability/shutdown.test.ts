/**
 * Graceful shutdown of the real CLI: SIGTERM in the middle of `envroll serve`'s train stream and
 * of `envroll eval`. Both must stop scheduling, abort their in-flight engine requests, keep what
 * finished (whole NDJSON / traces.jsonl lines, a saved task cursor), and exit 143 with a message.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { readTraces } from "../../packages/core/src/outputs/traces-file.ts";
import type { EngineHandle } from "../../packages/engine/src/index.ts";
import {
  evalArgs,
  lineCount,
  onlyRunDir,
  servedUrl,
  startCli,
  waitFor,
  waitWhileRunning,
} from "../cli/cli-helpers.ts";
import { referenceEngine } from "../engine/reference-engine.ts";

/** Reads NDJSON lines of a streaming POST as they arrive. */
async function* ndjsonStream(url: string, body: unknown): AsyncGenerator<any> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  assert.equal(res.status, 200);
  const decoder = new TextDecoder();
  let buf = "";
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    buf += decoder.decode(chunk, { stream: true });
    for (let i = buf.indexOf("\n"); i >= 0; i = buf.indexOf("\n")) {
      yield JSON.parse(buf.slice(0, i)); // a half-written line would throw here
      buf = buf.slice(i + 1);
    }
  }
  assert.equal(buf, "", "the stream ended mid-line");
}

describe("SIGTERM mid-run", { concurrency: true, timeout: 180_000 }, () => {
  // Slow enough that a group takes a while and requests are in flight when the signal lands.
  let engine: EngineHandle;
  before(async () => {
    engine = await referenceEngine({ tokenLatencyMs: 15 });
  });
  after(async () => {
    await engine.close();
  });

  test("envroll serve: the stream ends with a summary, the cursor is saved, exit 143", async () => {
    const dir = mkdtempSync(join(tmpdir(), "envroll-serve-term-"));
    const config = join(dir, "env.toml");
    writeFileSync(config, 'model = "Qwen/Qwen3-0.6B"\nnum_tasks = 20\n[taskset]\nid = "reverse-text"\n');
    const state = join(dir, "state");
    const cli = startCli(["serve", config, "--state-dir", state]);
    const child = cli.child;
    const exited = cli.done.then((r) => r.code);
    const url = await servedUrl(cli);
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/, "serve binds loopback by default");
    const lines: any[] = [];
    for await (const line of ndjsonStream(`${url}/rollout`, {
      rollout_id: 0,
      count: 10,
      n: 2,
      engine_url: engine.url,
      concurrency: 4,
      sampling: { max_tokens: 512 },
    })) {
      lines.push(line);
      if (lines.length === 1) child.kill("SIGTERM");
    }
    assert.equal(await exited, 143, cli.output().stderr);
    const { stderr } = cli.output();
    assert.match(stderr, /SIGTERM: shutting down/);
    assert.match(stderr, /stopped by SIGTERM/);
    const groups = lines.filter((l) => l.type === "group");
    const summary = lines.at(-1);
    assert.equal(summary.type, "summary");
    assert.equal(summary.delivered, groups.length);
    assert.ok(summary.aborted > 0, "nothing was in flight when the signal landed");
    assert.ok(groups.length < 10, "the stream did not stop early");
    // The saved cursor knows exactly which tasks reached the client and which go back.
    const cursor = JSON.parse(readFileSync(join(state, "cursor-0.json"), "utf8"));
    assert.deepEqual([...cursor.completed].sort(), groups.map((g) => g.task_index).sort());
    assert.equal(cursor.completed.length + cursor.returned.length, cursor.handed_out_total);
    await waitFor(() => engine.stats().inFlight === 0, 5_000, "the engine to have no request in flight");
  });

  test("envroll eval: whole trace lines, a summary, the engine's requests aborted, exit 143", async () => {
    const out = mkdtempSync(join(tmpdir(), "envroll-eval-term-"));
    const abortedBefore = engine.stats().aborted;
    const cli = startCli([
      ...evalArgs(12, 2),
      "-o",
      out,
      "--engine",
      engine.url,
      "-m",
      "envroll-engine/reference",
      "--client.renderer",
      "qwen3",
      "-c",
      "4",
    ]);
    const traces = () => {
      try {
        return join(onlyRunDir(out), "traces.jsonl");
      } catch {
        return ""; // the run folder is not there yet
      }
    };
    const { child, done } = cli;
    await waitWhileRunning(cli, () => traces() !== "" && lineCount(traces()) >= 2, 120_000, "first traces");
    child.kill("SIGTERM");
    const res = await done;
    assert.equal(res.code, 143, res.stderr);
    assert.match(res.stderr, /SIGTERM/);
    const { traces: records, badLines } = readTraces(traces());
    assert.deepEqual(badLines, [], "a half-written trace line");
    assert.ok(records.length >= 2 && records.length < 24, `${records.length} traces`);
    assert.ok(readFileSync(traces(), "utf8").endsWith("\n"));
    assert.ok(existsSync(join(onlyRunDir(out), "summary.json")));
    // In-flight requests were aborted on the engine, not left to run to the end.
    await waitFor(() => engine.stats().inFlight === 0, 5_000, "the engine to have no request in flight");
    assert.ok(engine.stats().aborted > abortedBefore, "no engine request was aborted");
  });
});
