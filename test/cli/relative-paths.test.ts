/**
 * The README's "bring your own agent" shape, `--harness.command '["python3", "agent.py"]'` run
 * from the folder holding agent.py (issue 37): the program runs in a per-rollout working folder,
 * so the relative file must be made absolute first, against the working folder for a flag and
 * the config file's folder for a TOML value. The trace records the command as it ran.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { onlyRunDir, runCli } from "./cli-helpers.ts";

/** One chat-completions turn with the opening messages: the smallest harness program. */
const AGENT = `const r = await fetch(process.env.OPENAI_BASE_URL + "/chat/completions", {
  method: "POST",
  headers: { authorization: "Bearer " + process.env.OPENAI_API_KEY, "content-type": "application/json" },
  body: JSON.stringify({ model: process.env.ENVROLL_MODEL, messages: JSON.parse(process.env.ENVROLL_PROMPT) }),
});
if (!r.ok) { console.error(await r.text()); process.exit(1); }
`;

function traces(out: string): any[] {
  return readFileSync(join(onlyRunDir(out), "traces.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
}

test("a program named relative to the working folder runs, and the trace records it absolute", async () => {
  const dir = mkdtempSync(join(tmpdir(), "envroll-relpath-"));
  writeFileSync(join(dir, "agent.mjs"), AGENT);
  const r = await runCli(
    ["eval", "reverse-text", "-n", "2", "-o", "out", "--harness.command", '["node", "agent.mjs"]'],
    dir,
  );
  assert.equal(r.code, 0, r.stderr);
  const all = traces(join(dir, "out"));
  assert.equal(all.length, 2);
  for (const t of all) {
    assert.deepEqual(t.errors, []);
    assert.deepEqual(t.info.harness_command, ["node", join(dir, "agent.mjs")]);
    assert.ok(t.reward > 0.5, `the reference answer went through the program (reward ${t.reward})`);
  }
  // The saved config re-runs from anywhere: the path in it is absolute.
  assert.match(readFileSync(join(onlyRunDir(join(dir, "out")), "config.toml"), "utf8"), /agent\.mjs/);
  assert.ok(
    readFileSync(join(onlyRunDir(join(dir, "out")), "config.toml"), "utf8").includes(join(dir, "agent.mjs")),
  );
});

test("a TOML value is read against the config file's folder, not the working folder", async () => {
  const root = mkdtempSync(join(tmpdir(), "envroll-relpath-"));
  mkdirSync(join(root, "cfg"));
  writeFileSync(join(root, "cfg", "agent.mjs"), AGENT);
  writeFileSync(
    join(root, "cfg", "env.toml"),
    'num_tasks = 1\n[taskset]\nid = "reverse-text"\n[harness]\ncommand = ["node", "agent.mjs"]\n',
  );
  const r = await runCli(["eval", "cfg/env.toml", "-o", "out"], root);
  assert.equal(r.code, 0, r.stderr);
  const [t] = traces(join(root, "out"));
  assert.deepEqual(t.errors, []);
  assert.deepEqual(t.info.harness_command, ["node", join(root, "cfg", "agent.mjs")]);
});
