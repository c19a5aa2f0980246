/**
 * Paths as users mean them (issue 37): a relative path in a TOML value is read against the
 * config file's folder, one on the command line against the working folder, and both are made
 * absolute when the config loads, so a program run in a rollout's own working folder (and a
 * saved config.toml re-run from elsewhere) still finds its files.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { absolutizePaths, argvFiles } from "../../packages/core/src/config/paths.ts";
import { loadEnvironment } from "../../packages/core/src/environment.ts";
import { loadConfig } from "../../packages/core/src/loaders/config.ts";

/** A folder with a config in `cfg/` and the files it names beside it. */
function project(): { root: string; cfg: string } {
  const root = mkdtempSync(join(tmpdir(), "envroll-paths-"));
  const cfg = join(root, "cfg");
  mkdirSync(join(cfg, "data"), { recursive: true });
  mkdirSync(join(cfg, "pkg"));
  writeFileSync(join(cfg, "agent.py"), "print('hi')\n");
  writeFileSync(join(cfg, "data", "prompts.jsonl"), '{"prompt": "abc"}\n{"prompt": "hello"}\n');
  writeFileSync(join(cfg, "judge.txt"), "Is {response} right? {answer}\n");
  return { root, cfg };
}

test("TOML paths are read against the config file's folder, whatever the working folder", async () => {
  const { cfg } = project();
  const path = join(cfg, "env.toml");
  writeFileSync(
    path,
    [
      'model = "Qwen/Qwen3-8B"',
      "[taskset]",
      'id = "reverse-text"',
      'dataset_path = "data/prompts.jsonl"',
      'split = "test"',
      "[[taskset.task.judges]]",
      'id = "reference"',
      'prompt_file = "judge.txt"',
      "[harness]",
      'command = ["python3", "agent.py", "-m", "pkg", "--out", "missing.txt"]',
      "[harness.runtime]",
      'type = "sandbox"',
      'ro_bind = ["data"]',
    ].join("\n"),
  );
  const config = await loadConfig(path);
  // The program's file is made absolute; a program name, a flag, a folder (python -m names a
  // module) and a file that does not exist stay as written.
  assert.deepEqual(config.harness.command, [
    "python3",
    join(cfg, "agent.py"),
    "-m",
    "pkg",
    "--out",
    "missing.txt",
  ]);
  const fields = config.taskset as Record<string, unknown>;
  assert.equal(fields["dataset_path"], join(cfg, "data", "prompts.jsonl"));
  assert.equal(fields["split"], "test", "a value that is not a file stays");
  assert.equal(config.model, "Qwen/Qwen3-8B", "a hub name is not a path");
  assert.equal(config.taskset.task.judges[0]!["prompt_file"], join(cfg, "judge.txt"));
  assert.deepEqual(config.harness.runtime["ro_bind"], [join(cfg, "data")]);
  // The data file is really the one loaded (the working folder has no data/prompts.jsonl).
  const dataOnly = join(cfg, "data.toml");
  writeFileSync(dataOnly, '[taskset]\nid = "reverse-text"\ndataset_path = "data/prompts.jsonl"\n');
  const env = await loadEnvironment(await loadConfig(dataOnly));
  try {
    assert.deepEqual(
      env.tasks.map((t) => (t as { prompt: string }).prompt),
      ["abc", "hello"],
    );
  } finally {
    await env.close();
  }
});

test("command-line values are read against the working folder, TOML text too", async () => {
  const { root, cfg } = project();
  const config = await loadConfig(
    'model = "Qwen/Qwen3-8B"\n[taskset]\nid = "reverse-text"\n[harness]\ncommand = ["node", "cfg/agent.py"]\n',
    {
      toolsets: undefined,
      "harness.command": '["python3", "cfg/agent.py"]',
      "taskset.dataset_path": "cfg/data/prompts.jsonl",
    },
    { baseDir: root, overridesBaseDir: root },
  );
  assert.deepEqual(config.harness.command, ["python3", join(cfg, "agent.py")]);
  assert.equal(
    (config.taskset as Record<string, unknown>)["dataset_path"],
    join(cfg, "data", "prompts.jsonl"),
  );
  // Relative to a folder where the file is not: left as written, for the step that reads it to report.
  const elsewhere = await loadConfig(
    '[taskset]\nid = "reverse-text"\n',
    {
      "harness.command": '["python3", "agent.py"]',
    },
    { overridesBaseDir: tmpdir() },
  );
  assert.deepEqual(elsewhere.harness.command, ["python3", "agent.py"]);
});

test("argvFiles lists the existing files an argv names by absolute path", () => {
  const { cfg } = project();
  assert.deepEqual(argvFiles(["python3", join(cfg, "agent.py"), join(cfg, "data"), "/no/such/file"]), [
    join(cfg, "agent.py"),
  ]);
  assert.deepEqual(argvFiles(undefined), []);
});

test("module, folder and hub-name values: paths become absolute, names stay", () => {
  const { cfg } = project();
  writeFileSync(join(cfg, "my-task.ts"), "export default {};\n");
  writeFileSync(join(cfg, "judge.ts"), "export default {};\n");
  const table = absolutizePaths(
    {
      model: "pkg",
      taskset: { id: "./my-task.ts", task: { judges: [{ id: "./judge.ts" }, { id: "reference" }] } },
      toolsets: [{ name: "s", command: ["python3", "agent.py"], cwd: "data" }],
    },
    cfg,
  );
  assert.deepEqual(table, {
    model: join(cfg, "pkg"),
    taskset: {
      id: join(cfg, "my-task.ts"),
      task: { judges: [{ id: join(cfg, "judge.ts") }, { id: "reference" }] },
    },
    toolsets: [{ name: "s", command: ["python3", join(cfg, "agent.py")], cwd: join(cfg, "data") }],
  });
  // A built-in id that happens to name a folder here is still the built-in.
  mkdirSync(join(cfg, "reverse-text"));
  assert.deepEqual(absolutizePaths({ taskset: { id: "reverse-text" } }, cfg), {
    taskset: { id: "reverse-text" },
  });
});
