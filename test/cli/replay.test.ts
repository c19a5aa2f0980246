/**
 * `envroll replay`: a recorded coding-agent episode (tool-math under the default bash/edit
 * harness) replays to "identical" with its exact ids and logprobs; a changed reward function
 * re-scores the same episodes without a model; a changed tool shows where the episode diverges.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { before, test } from "node:test";
import { readTraces } from "../../packages/core/src/outputs/traces-file.ts";
import { evalArgs, onlyRunDir, ROOT, runCli } from "./cli-helpers.ts";

/** Tool calls a trace recorded: a rollout that called none has no `tool_calls` entry at all. */
const toolCalls = (t: { info: Record<string, unknown> }) =>
  (t.info["tool_calls"] as unknown[] | undefined)?.length ?? 0;

let dir: string;
let run: string;
let traces: string;

/** A taskset module: tool-math with `change` applied (a reward or tool swapped). */
function variant(name: string, change: string): string {
  const path = join(dir, `${name}.ts`);
  writeFileSync(
    path,
    `import { builtinTasksets } from ${JSON.stringify(join(ROOT, "packages/core/src/index.ts"))};
const base = await builtinTasksets["tool-math"]();
export default { ...base, ${change} };
`,
  );
  const cfg = join(dir, `${name}.toml`);
  writeFileSync(
    cfg,
    readFileSync(join(run, "config.toml"), "utf8").replace(
      'id = "tool-math"',
      `id = ${JSON.stringify(path)}`,
    ),
  );
  return cfg;
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "envroll-replay-"));
  writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }));
  const r = await runCli([...evalArgs(2, 2, "tool-math"), "-o", join(dir, "out")], dir);
  assert.equal(r.code, 0, r.stderr);
  run = onlyRunDir(join(dir, "out"));
  traces = join(run, "traces.jsonl");
});

test("a recorded coding-agent episode replays identically, ids and logprobs exact", async () => {
  const out = join(dir, "replayed.jsonl");
  const r = await runCli(["replay", traces, "-o", out], dir);
  assert.equal(r.code, 0, r.stderr + r.stdout);
  const lines = r.stdout.trim().split("\n");
  assert.equal(lines.length, 4);
  for (const line of lines) assert.match(line, /: identical$/);
  assert.match(r.stderr, /4 replayed: 4 identical, 0 diverged, 0 re-scored/);
  const recorded = readTraces(traces).traces;
  const replayed = readTraces(out).traces;
  assert.equal(replayed.length, 4);
  // The reference policy samples (rid-seeded), so rollouts differ; each replay must equal one recording.
  assert.ok(
    recorded.some((t) => t.num_turns >= 2 && toolCalls(t) > 0),
    "a multi-turn tool episode was recorded",
  );
  for (const now of replayed) {
    const same = recorded.filter(
      (t) =>
        t.task_index === now.task_index &&
        JSON.stringify(t.branches) === JSON.stringify(now.branches) &&
        t.id !== now.id,
    );
    assert.equal(same.length >= 1, true, `replay ${now.id} equals a recording, ids and logprobs`);
  }
});

test("a changed reward function re-scores the recorded episodes without a model", async () => {
  const cfg = variant("strict", `rewards: [{ name: "correct", weight: 1, fn: () => 0 }]`);
  const r = await runCli(["replay", traces, "--config", cfg, "--json"], dir);
  assert.equal(r.code, 0, r.stderr);
  const verdicts = r.stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  assert.equal(verdicts.length, 4);
  const recorded = readTraces(traces).traces;
  assert.ok(
    recorded.some((t) => t.reward === 1),
    "some recorded episode was rewarded",
  );
  for (const v of verdicts) {
    assert.equal(v.identical, true);
    const was = recorded.find((t) => t.id === v.id)!;
    // Only episodes the old reward paid change; the others were 0 already.
    assert.deepEqual(
      v.rescored.map((c: { key: string; recorded: number; now: number }) => [c.key, c.recorded, c.now]),
      was.reward === 0
        ? []
        : [
            ["reward", was.reward, 0],
            ["rewards.correct", was.rewards.correct, 0],
          ],
    );
  }
  assert.doesNotMatch(r.stderr, /never saw/);
});

test("a changed tool output is reported as the divergence point, and the run exits 1", async () => {
  const cfg = variant(
    "tool-v2",
    `tools: base.tools.map((t) => ({ ...t, execute: async (a, c) => \`\${await t.execute(a, c)} (v2)\` }))`,
  );
  const used = readTraces(traces).traces.find((t) => toolCalls(t) > 0)!;
  const r = await runCli(["replay", traces, "--config", cfg, "--trace", used.id], dir);
  assert.equal(r.code, 1, r.stderr + r.stdout);
  const head = `task ${used.task_index} rollout ${used.rollout_index} [(]${used.id.slice(0, 8)}[)]`;
  assert.match(
    r.stdout,
    new RegExp(`${head}: diverged at turn 2: token [0-9]+ differs inside a tool message`),
  );
  assert.match(r.stdout, /replayed: ".*v2/);
  assert.match(r.stderr, /1 replayed: 0 identical, 1 diverged/);
});

test("bad input is a usage error naming it", async () => {
  const garbage = join(dir, "garbage.jsonl");
  writeFileSync(garbage, "not json\n");
  const a = await runCli(["replay", garbage], dir);
  assert.equal(a.code, 2);
  assert.match(a.stderr, /no trace in it \(1 unreadable line\(s\), first at line 1\)/);
  const b = await runCli(["replay", traces, "--trace", "nosuchid"], dir);
  assert.equal(b.code, 2);
  assert.match(b.stderr, /--trace nosuchid: no trace has that id/);
});
