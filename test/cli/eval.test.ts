/**
 * End-to-end: the real CLI against the built-in engine. Covers the quickstart's four outputs,
 * summary/trace agreement, the report in a browser, Ctrl-C, and kill → --resume.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { readTraces } from "../../packages/core/src/outputs/traces-file.ts";
import type { EngineHandle } from "../../packages/engine/src/index.ts";
import { referenceEngine } from "../engine/reference-engine.ts";
import { CHROMIUM_SKIP, findChromium, renderInChromium } from "../outputs/chromium.ts";
import { checkSummaryAgainstTraces } from "../outputs/recompute.ts";
import { evalArgs, lineCount, onlyRunDir, ROOT, runCli, startCli, waitWhileRunning } from "./cli-helpers.ts";

const TASKSET = "reverse-text";

/** Every (task, rollout) of an n × r run appears exactly once in the file. */
function assertEachOnce(dir: string, n: number, r: number): void {
  const { traces, badLines } = readTraces(join(dir, "traces.jsonl"));
  assert.deepEqual(badLines, []);
  // Errored attempts stay in the file (superseded by their rerun); what must hold is that no
  // rollout finished twice and every one finished once.
  const keys = traces.filter((t) => t.errors.length === 0).map((t) => `${t.task_index}:${t.rollout_index}`);
  assert.equal(new Set(keys).size, keys.length, "no rollout finished twice");
  const expected = [];
  for (let t = 0; t < n; t++) for (let k = 0; k < r; k++) expected.push(`${t}:${k}`);
  assert.deepEqual([...keys].sort(), expected.sort());
}

// The CLI tests are mostly process start-up and waiting, so they run side by side.
describe("envroll eval (real CLI)", { concurrency: true }, () => {
  // A slow engine (150 ms per request) so a run can be interrupted midway.
  let slow: EngineHandle;
  before(async () => {
    slow = await referenceEngine({ latencyMs: 150 });
  });
  after(async () => {
    await slow.close();
  });

  const slowArgs = () => [
    "--engine",
    slow.url,
    "-m",
    "envroll-engine/reference",
    "--client.renderer",
    "qwen3",
    "-c",
    "2",
  ];

  /** An 8 × 4 eval on the slow engine, started and left running once `traces` lines are written. */
  async function slowRunWithTraces(prefix: string, traces: number) {
    const out = mkdtempSync(join(tmpdir(), prefix));
    const cli = startCli([...evalArgs(8, 4, TASKSET), "-o", out, ...slowArgs()]);
    const ready = () => existsSync(out) && lineCount(tracesPath(out)) >= traces;
    await waitWhileRunning(cli, ready, 120_000, "first traces");
    return { out, ...cli };
  }

  test("the offline quickstart writes the four outputs, and the summary agrees with the traces", async (t) => {
    const out = mkdtempSync(join(tmpdir(), "envroll-eval-"));
    const res = await runCli([...evalArgs(8, 4, TASKSET), "-o", out]);
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stderr, /built-in engine/);
    assert.match(res.stdout, /pass@4/);
    const dir = onlyRunDir(out);
    assert.match(dir, /reverse-text--envroll-engine-reference--null/);
    for (const f of ["config.toml", "traces.jsonl", "summary.json", "report.html"])
      assert.ok(existsSync(join(dir, f)), f);
    assertEachOnce(dir, 8, 4);
    const summary = JSON.parse(readFileSync(join(dir, "summary.json"), "utf8"));
    checkSummaryAgainstTraces(summary, readTraces(join(dir, "traces.jsonl")).traces, 4);
    assert.deepEqual(Object.keys(summary.pass_at_k), ["1", "2", "4"]);

    const bin = findChromium();
    if (!bin) return t.skip(CHROMIUM_SKIP);
    const { dom, console } = await renderInChromium(bin, `file://${join(dir, "report.html")}`);
    assert.deepEqual(console, [], "report.html logs no console errors");
    assert.match(dom, /id="t-7-3"/);
  });

  test("Ctrl-C stops, keeps what finished, writes the summary and exits non-zero", async () => {
    const { out, child, done } = await slowRunWithTraces("envroll-sigint-", 3);
    child.kill("SIGINT");
    const res = await done;
    assert.equal(res.code, 130, res.stderr);
    assert.match(res.stderr, /resume with: npx envroll eval --resume /);
    const dir = onlyRunDir(out);
    const summary = JSON.parse(readFileSync(join(dir, "summary.json"), "utf8"));
    const lines = readTraces(join(dir, "traces.jsonl")).traces;
    assert.ok(lines.length < 32, "stopped early");
    checkSummaryAgainstTraces(summary, lines, 4);
    // Every rollout is accounted for: done, cut short by the interrupt, or never started.
    const m =
      /interrupted: (\d+)\/32 rollouts done in .*; (\d+) cut short \(left out\), (\d+) never started/.exec(
        res.stderr,
      );
    assert.ok(m, res.stderr);
    const [ok, cut, never] = [Number(m[1]), Number(m[2]), Number(m[3])];
    assert.equal(ok, lines.filter((tr) => tr.errors.length === 0).length);
    assert.equal(ok + cut + never, 32, `${ok} + ${cut} + ${never}`);
    assert.ok(never > 0, "the queue was not empty when it stopped");
  });

  test("--resume after a kill -9 finishes the run with every (task, rollout) exactly once", async () => {
    const { out, child, done } = await slowRunWithTraces("envroll-resume-", 6);
    child.kill("SIGKILL");
    await done;
    const dir = onlyRunDir(out);
    const before = lineCount(join(dir, "traces.jsonl"));
    assert.ok(before >= 6 && before < 32, `killed midway (${before} traces)`);
    // What counts as done: whole lines (kill -9 can leave a partial last one) of rollouts that
    // did not error (errored ones are rerun), once per (task, rollout).
    const finished = new Set(
      readTraces(join(dir, "traces.jsonl"))
        .traces.filter((tr) => tr.errors.length === 0)
        .map((tr) => `${tr.task_index}:${tr.rollout_index}`),
    ).size;
    const res = await runCli(["eval", "--resume", dir]);
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stderr, new RegExp(`${finished} rollout\\(s\\) done, ${32 - finished} to run`));
    assertEachOnce(dir, 8, 4);
    const summary = JSON.parse(readFileSync(join(dir, "summary.json"), "utf8"));
    assert.equal(summary.num_traces, 32);
    checkSummaryAgainstTraces(summary, readTraces(join(dir, "traces.jsonl")).traces, 4);
    // Nothing left to do: a second resume runs nothing and appends nothing.
    const linesAfterResume = lineCount(join(dir, "traces.jsonl"));
    const again = await runCli(["eval", "--resume", dir]);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(lineCount(join(dir, "traces.jsonl")), linesAfterResume);
  });

  test("a failing group reward stops the run but keeps a summary and report, exit 1", async () => {
    const dir = mkdtempSync(join(tmpdir(), "envroll-groupfail-"));
    const module = join(dir, "bad-group.ts");
    writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }));
    writeFileSync(
      module,
      `import { defineTaskset } from ${JSON.stringify(join(ROOT, "packages", "core", "src", "index.ts"))};
export default defineTaskset({
  id: "bad-group",
  defaults: { harness: { id: "null" } },
  load: () => [0, 1, 2].map((idx) => ({ idx, prompt: "say hi" })),
  rewards: [{ name: "one", fn: () => 1 }],
  groupRewards: [{ name: "boom", fn: ({ task }) => { if (task.idx === 1) throw new Error("group reward exploded"); return [0, 0]; } }],
});
`,
    );
    const out = join(dir, "out");
    const res = await runCli(["eval", module, "-r", "2", "-c", "1", "-o", out]);
    assert.equal(res.code, 1, res.stderr);
    assert.match(res.stderr, /run failed: .*group reward exploded/);
    const run = onlyRunDir(out);
    assert.ok(existsSync(join(run, "summary.json")) && existsSync(join(run, "report.html")));
  });

  test("--openai runs against any OpenAI-compatible endpoint (text level, no token ids)", async () => {
    // A stand-in provider that lists one model and reverses the last user message.
    const server = createServer((req, res) => {
      if (req.method === "GET" && req.url === "/v1/models") {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ object: "list", data: [{ id: "stand-in", object: "model" }] }));
        return;
      }
      let body = "";
      req.on("data", (d) => {
        body += d;
      });
      req.on("end", () => {
        const { messages, model } = JSON.parse(body);
        const user = [...messages].reverse().find((m: { role: string }) => m.role === "user");
        const answer = [...String(user.content)].reverse().join("");
        res.writeHead(200, { "content-type": "application/json" });
        res.end(
          JSON.stringify({
            id: "x",
            object: "chat.completion",
            created: 0,
            model,
            choices: [
              {
                index: 0,
                message: { role: "assistant", content: `<reversed_text>${answer}</reversed_text>` },
                finish_reason: "stop",
              },
            ],
            usage: { prompt_tokens: 10, completion_tokens: 20, total_tokens: 30 },
          }),
        );
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const { port } = server.address() as AddressInfo;
      const out = mkdtempSync(join(tmpdir(), "envroll-openai-"));
      const res = await runCli([
        ...evalArgs(3, 2, TASKSET),
        "-o",
        out,
        "--openai",
        `http://127.0.0.1:${port}/v1`,
        "-m",
        "stand-in",
      ]);
      assert.equal(res.code, 0, res.stderr);
      assert.doesNotMatch(res.stderr, /built-in engine/);
      const dir = onlyRunDir(out);
      assert.match(dir, /reverse-text--stand-in--null/);
      const summary = JSON.parse(readFileSync(join(dir, "summary.json"), "utf8"));
      assert.equal(summary.reward.mean, 1);
      assert.equal(summary.tokens.total, 6 * 30);
      assertEachOnce(dir, 3, 2);
    } finally {
      server.close();
    }
  });
});

function tracesPath(out: string): string {
  try {
    return join(onlyRunDir(out), "traces.jsonl");
  } catch {
    return join(out, "missing");
  }
}
