import assert from "node:assert/strict";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { rewardBins } from "../../packages/core/src/outputs/report/charts.ts";
import { esc, jsonForScript } from "../../packages/core/src/outputs/report/html.ts";
import { pickEmbedded, renderReport } from "../../packages/core/src/outputs/report/report.ts";
import { summarize } from "../../packages/core/src/outputs/summary.ts";
import { CHROMIUM_SKIP, findChromium, renderInChromium, screenshot } from "./chromium.ts";
import { errored, grid, makeTrace } from "./fixtures.ts";

const PAYLOAD = "</script><script>alert(1);document.documentElement.setAttribute('data-pwned','1')</script>";
const IMG = `<img src=x onerror="document.documentElement.setAttribute('data-pwned','2')">`;

function hostileRun() {
  const traces = grid(6, 4, (t, r) => ((t * 7 + r * 3) % 10) / 10);
  traces[3] = errored(0, 3, `connection refused ${IMG}`);
  traces[9] = makeTrace({
    task_index: 2,
    rollout_index: 1,
    reward: 0.3,
    last_reply: PAYLOAD,
    rewards: { [`k${IMG}`]: 0.3 },
    task: { type: "T", data: { idx: 2, prompt: PAYLOAD, name: null } },
    nodes: [
      {
        parent: null,
        message: { role: "assistant", content: `${PAYLOAD}${IMG}` },
        sampled: true,
        timestamp: 1,
      },
    ],
  });
  const meta = {
    taskset: `rt${IMG}`,
    model: PAYLOAD,
    harness: "null",
    run_id: "r",
    num_tasks: 6,
    num_rollouts: 4,
  };
  return { traces, summary: summarize(traces, meta) };
}

test("escaping helpers", () => {
  assert.equal(esc(`<a href="x">'&`), "&lt;a href=&quot;x&quot;&gt;&#39;&amp;");
  const j = jsonForScript({ s: "</script>\u2028&" });
  assert.ok(!j.includes("</script>") && !j.includes("\u2028") && !j.includes("&"));
  assert.deepEqual(JSON.parse(j), { s: "</script>\u2028&" });
});

test("reward bins: distinct values when few, equal bins otherwise", () => {
  assert.deepEqual(
    rewardBins([0, 0.5, 0.5, 2]).map((b) => b.count),
    [1, 2, 1],
  );
  const many = Array.from({ length: 100 }, (_, i) => i / 99);
  const bins = rewardBins(many);
  assert.equal(bins.length, 20);
  assert.equal(
    bins.reduce((a, b) => a + b.count, 0),
    100,
  );
});

test("the report is one well-formed page and never emits user text raw", () => {
  const { traces, summary } = hostileRun();
  const html = renderReport(summary, traces);
  assert.match(html, /^<!doctype html>/);
  assert.equal((html.match(/<script/g) ?? []).length, 2, "only the JSON island and the report's own script");
  assert.ok(!html.includes("<script>alert"));
  assert.ok(!html.includes("<img src=x"));
  assert.ok(!/https?:\/\//.test(html), "no external resources");
  for (const tag of ["section", "details", "table", "svg", "summary"]) {
    const open = (html.match(new RegExp(`<${tag}[ >]`, "g")) ?? []).length;
    const close = (html.match(new RegExp(`</${tag}>`, "g")) ?? []).length;
    assert.equal(open, close, `<${tag}> balanced`);
  }
  // The summary JSON island round-trips.
  const island = html.match(/<script type="application\/json" id="summary-data">(.*?)<\/script>/s)![1]!;
  assert.equal(JSON.parse(island).model, PAYLOAD);
  // Every rollout cell links to an embedded trace.
  for (const t of traces) assert.ok(html.includes(`href="#t-${t.task_index}-${t.rollout_index}"`));
});

test("the report renders in headless Chromium without console errors or injected script", async (t) => {
  const bin = findChromium();
  if (!bin) return t.skip(CHROMIUM_SKIP);
  const { traces, summary } = hostileRun();
  const dir = mkdtempSync(join(tmpdir(), "envroll-report-"));
  const file = join(dir, "report.html");
  writeFileSync(file, renderReport(summary, traces));
  const { dom, console } = await renderInChromium(bin, `file://${file}#t-2-1`);
  assert.deepEqual(console, [], "no console messages (errors, CSP violations)");
  assert.ok(!/data-pwned="/.test(dom), "injected script did not run");
  assert.match(
    dom,
    /<details class="trace" id="t-2-1" open="">/,
    "the report's own script opened the linked trace",
  );
  assert.match(dom, /<svg class="chart"/);
  if (process.env.ENVROLL_SCREENSHOT) {
    screenshot(bin, `file://${file}`, process.env.ENVROLL_SCREENSHOT);
    assert.ok(existsSync(process.env.ENVROLL_SCREENSHOT));
  }
});

test("a multi-branch trace shows each branch's path", () => {
  const t = makeTrace({ task_index: 0, rollout_index: 0 });
  t.branches = [
    { ...t.branches[0]!, node_indices: [0, 1] },
    { ...t.branches[0]!, node_indices: [0, 2] },
  ];
  const html = renderReport(
    summarize([t], { taskset: "x", model: "m", harness: "h", run_id: "r", num_tasks: 1, num_rollouts: 1 }),
    [t],
  );
  assert.match(html, /branch 1 of 2/);
  assert.match(html, /branch 2 of 2/);
});

test("over the embedding cap, errored traces are embedded first and the rest stay in traces.jsonl", () => {
  const traces = grid(5, 2, () => 1);
  traces[9] = errored(4, 1);
  const picked = pickEmbedded(traces, 3);
  assert.deepEqual(
    picked.map((t) => `${t.task_index}:${t.rollout_index}`),
    ["0:0", "0:1", "4:1"],
  );
  const html = renderReport(
    summarize(traces, { taskset: "x", model: "m", harness: "h", run_id: "r", num_tasks: 5, num_rollouts: 2 }),
    traces,
    { maxTraces: 3 },
  );
  assert.match(html, /7 more trace\(s\) are in traces.jsonl only/);
  assert.ok(html.includes('href="#t-4-1"'));
  assert.ok(!html.includes('href="#t-3-0"'));
});
