import assert from "node:assert/strict";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { z } from "zod";
import { loadEnvironment } from "../../packages/core/src/environment.ts";
import { ConfigError } from "../../packages/core/src/errors.ts";
import { loadConfig } from "../../packages/core/src/loaders/config.ts";
import { defineTaskset } from "../../packages/core/src/task.ts";
import { tempFile } from "../temp-file.ts";

const taskset = defineTaskset({
  id: "cfg",
  configSchema: z.object({ split: z.string().default("train"), size: z.int().min(1).default(3) }),
  defaults: { harness: { id: "null" }, num_rollouts: 4, sampling: { temperature: 0.5 } },
  load: (c: { size: number }) => Array.from({ length: c.size }, (_, i) => ({ idx: i, prompt: `p${i}` })),
});
const T = 'taskset.id = "cfg"\n';

// [what, toml, overrides, the key path or line the error must name]
const cases: [string, string, Record<string, unknown>, RegExp][] = [
  [
    "bad override number",
    T,
    { "retries.rollout.max_retries": "3x" },
    /^retries\.rollout\.max_retries: expected a whole number ≥ 0, got "3x"$/,
  ],
  [
    "negative retries",
    `${T}retries.rollout.max_retries = -1`,
    {},
    /retries\.rollout\.max_retries: expected a whole number ≥ 0, got -1/,
  ],
  ["fractional turns", `${T}max_turns = 2.5`, {}, /max_turns: expected a whole number ≥ 1, got 2.5/],
  ["string turns", `${T}max_turns = "ten"`, {}, /max_turns: expected a whole number ≥ 1, got "ten"/],
  ["zero rollouts", `${T}num_rollouts = 0`, {}, /num_rollouts: expected a whole number ≥ 1, got 0/],
  [
    "alias rollouts wrong type",
    `${T}r = "many"`,
    {},
    /num_rollouts: expected a whole number ≥ 1, got "many"/,
  ],
  ["unknown top-level key", `${T}modle = "x"`, {}, /^modle: unknown key \(did you mean "model"\?\)$/],
  [
    "unknown nested key",
    `${T}[timeout]\nrolout = 3`,
    {},
    /timeout\.rolout: unknown key \(did you mean "rollout"\?\)/,
  ],
  ["unknown retries key", `${T}retries.rollout.retries = 3`, {}, /retries\.rollout\.retries: unknown key/],
  [
    "unknown harness key",
    `${T}harness.comand = ["x"]`,
    {},
    /harness\.comand: unknown key \(did you mean "command"\?\)/,
  ],
  [
    "unknown subprocess runtime key",
    `${T}harness.runtime = { type = "subprocess", image = "x" }`,
    {},
    /harness\.runtime\.image: unknown key/,
  ],
  [
    "a sandbox option without a type (the default runtime, auto, takes none)",
    `${T}harness.runtime.memory_mb = 512`,
    {},
    /harness\.runtime\.memory_mb: unknown key/,
  ],
  [
    "unknown taskset field",
    'taskset = { id = "cfg", splt = "x" }',
    {},
    /taskset\.splt: unknown key \(did you mean "split"\?\)/,
  ],
  [
    "bad taskset field type",
    'taskset = { id = "cfg", size = "big" }',
    {},
    /taskset\.size: expected number, got "big"/,
  ],
  ["missing taskset", 'model = "x"', {}, /^taskset\.id: required/],
  ["empty taskset id", 'taskset = { id = "" }', {}, /^taskset\.id: required/],
  ["taskset not a table", 'taskset = "cfg"', {}, /^taskset: expected a table/],
  ["unknown taskset id", 'taskset = { id = "cgf" }', {}, /taskset\.id: unknown taskset "cgf"/],
  [
    "taskset id naming an Object member",
    'taskset = { id = "constructor" }',
    {},
    /taskset\.id: unknown taskset "constructor"/,
  ],
  ["taskset id toString", 'taskset = { id = "toString" }', {}, /taskset\.id: unknown taskset "toString"/],
  [
    "unknown client type",
    `${T}client = { type = "magic" }`,
    {},
    /client\.type: expected one of "eval", "train", got "magic"/,
  ],
  [
    "eval client train key",
    `${T}client = { type = "eval", renderer = "qwen3" }`,
    {},
    /client\.renderer: unknown key/,
  ],
  ["bad headers", `${T}client.headers = { a = 1 }`, {}, /client\.headers\.a: expected a string, got 1/],
  [
    "bad timeout",
    `${T}timeout.rollout = -5`,
    {},
    /timeout\.rollout: expected a number of seconds > 0 or null, got -5/,
  ],
  [
    "bad temperature",
    `${T}sampling.temperature = "hot"`,
    {},
    /sampling\.temperature: expected number, got "hot"/,
  ],
  [
    "bad max_tokens alias",
    `${T}sampling.max_completion_tokens = 0`,
    {},
    /sampling\.max_tokens: expected a whole number ≥ 1, got 0/,
  ],
  ["alias conflict", `${T}n = 2\nnum_tasks = 3`, {}, /^n: is an alias of num_tasks/],
  ["bad shuffle", `${T}shuffle = "yes"`, {}, /shuffle: expected boolean, got "yes"/],
  [
    "include not a list",
    `${T}retries.rollout.include = "TaskError"`,
    {},
    /retries\.rollout\.include: expected an array of strings, got "TaskError"/,
  ],
  [
    "command harness without command",
    `${T}harness.id = "command"`,
    {},
    /harness\.command: required when harness\.id = "command"/,
  ],
  [
    "TOML syntax: unclosed array",
    `${T}sampling.stop = ["a",\nmax_turns = 3`,
    {},
    /^config:3:\d+: TOML syntax error/,
  ],
  ["TOML syntax: duplicate key", `${T}max_turns = 1\nmax_turns = 2`, {}, /^config:3:\d+: TOML syntax error/],
  ["TOML syntax: bare value", `${T}model = deepseek`, {}, /^config:2:\d+: TOML syntax error/],
  ["malformed override key", T, { "sampling..x": 1 }, /^sampling\.\.x: malformed key/],
  ["empty model", `${T}model = ""`, {}, /^model: expected a non-empty model name, got ""$/],
  ["empty model override", T, { model: "" }, /^model: expected a non-empty model name, got ""$/],
  [
    "__proto__ table",
    `${T}[__proto__]\nx = 1`,
    {},
    /^__proto__: reserved key name, not allowed in a config$/,
  ],
  [
    "nested __proto__ key",
    `${T}[harness.__proto__]\nx = 1`,
    {},
    /^harness\.__proto__: reserved key name, not allowed in a config$/,
  ],
  ["constructor override", T, { constructor: 1 }, /^constructor: unknown key/],
  ["__proto__ override", T, { "sampling.__proto__.x": 1 }, /^sampling\.__proto__\.x: reserved key name/],
  ["missing config file", "", {}, /cannot read config file/],
  // A built-in taskset's cross-field rule is its schema's: refused with the config, not at load().
  [
    "guess-number range",
    'taskset = { id = "guess-number", low = 5, high = 5 }',
    {},
    /^taskset\.high: must be greater than taskset\.low, got 5/,
  ],
  [
    "unknown harness",
    `${T}harness.id = "tool"`,
    {},
    /^harness\.id: unknown harness "tool" \(did you mean "tools"\?\)/,
  ],
  [
    "unknown runtime",
    `${T}harness.runtime = { type = "warp" }`,
    {},
    /^harness\.runtime\.type: unknown runtime "warp"/,
  ],
];

// These must go through taskset resolution itself, so no inline taskset is passed.
const resolvesId = new Set([
  "guess-number range",
  "unknown taskset id",
  "missing taskset",
  "taskset id naming an Object member",
  "taskset id toString",
]);

test(`${cases.length} malformed configs each name the key or line, as a ConfigError without a stack dump`, async () => {
  assert.ok(cases.length >= 30);
  for (const [what, toml, overrides, expected] of cases) {
    const source = what === "missing config file" ? join(tmpdir(), "no-such-envroll.toml") : toml;
    const attempt = loadConfig(source, overrides, resolvesId.has(what) ? {} : { taskset });
    await assert.rejects(
      attempt,
      (e: unknown) => {
        assert.ok(e instanceof ConfigError, `${what}: ${String(e)}`);
        assert.match(e.message, expected, what);
        assert.doesNotMatch(e.message, /\n\s+at /, `${what}: no stack trace in the message`);
        return true;
      },
      what,
    );
  }
});

test("precedence: CLI overrides > TOML > taskset defaults > built-in defaults; aliases resolve", async () => {
  const file = tempFile(
    "envroll-cfg-",
    "env.toml",
    `${T}r = 6\nc = 3\nsampling.max_completion_tokens = 64\n[taskset.task]\njudges = []\n`,
  );
  const c = await loadConfig(file, { "sampling.temperature": "0.9", n: "2", "taskset.size": 5 }, { taskset });
  assert.equal(c.num_rollouts, 6, "TOML over taskset default 4");
  assert.equal(c.max_concurrent, 3);
  assert.equal(c.num_tasks, 2, "CLI alias n");
  assert.equal(c.sampling.temperature, 0.9, "CLI over taskset default 0.5");
  assert.equal(c.sampling.max_tokens, 64);
  assert.equal(c.harness.id, "null", "taskset default over built-in 'default'");
  assert.equal(c.harness.runtime.type, "auto", "chosen per harness when the environment loads");
  assert.equal(c.model, "deepseek/deepseek-v4-flash");
  assert.deepEqual(c.taskset, { id: "cfg", task: { judges: [] }, split: "train", size: 5 });
  assert.deepEqual(c.retries.rollout, { max_retries: 0, include: [], exclude: [] });
  const sandboxed = defineTaskset({ ...taskset, id: "cfg-sb", runtime: { type: "sandbox", memory_mb: 256 } });
  const sb = await loadConfig('taskset.id = "cfg-sb"', {}, { taskset: sandboxed });
  assert.deepEqual(
    sb.harness.runtime,
    { type: "sandbox", memory_mb: 256 },
    "the taskset's runtime is a default",
  );
  const back = await loadConfig(
    'taskset.id = "cfg-sb"\nharness.runtime.type = "subprocess"',
    {},
    { taskset: sandboxed },
  );
  assert.deepEqual(back.harness.runtime, { type: "subprocess" }, "a retyped table drops the old type's keys");
  const withCommand = await loadConfig(`${T}harness.command = ["python3", "a.py"]`, {}, { taskset });
  assert.equal(withCommand.harness.id, "command", "a command implies the command harness");
  const passthrough = await loadConfig(`${T}sampling.extra_body = { top_k = 2 }`, {}, { taskset });
  assert.deepEqual(
    { ...(passthrough.sampling["extra_body"] as object) },
    { top_k: 2 },
    "unknown sampling keys pass through",
  );
});

test("environment: tasks shuffled with a fixed seed then cut to num_tasks; bad judges and pairing rejected", async () => {
  const load = async (toml: string) =>
    loadEnvironment(await loadConfig(`${T}${toml}`, {}, { taskset }), { taskset });
  const a = await load("shuffle = true\nnum_tasks = 2\ntaskset.size = 20");
  const b = await load("shuffle = true\nnum_tasks = 2\ntaskset.size = 20");
  assert.deepEqual(a.tasks, b.tasks);
  assert.equal(a.tasks.length, 2);
  assert.notDeepEqual(
    a.tasks.map((t) => t.idx),
    [0, 1],
  );
  await assert.rejects(
    load('taskset.task.judges = [{ id = "rubric" }]'),
    /taskset\.task\.judges\.0\.path: required: the rubric file/,
  );
  const withTools = defineTaskset({ ...taskset, id: "cfg-tools", tools: [] });
  // Refused by loadConfig itself, before any environment loads.
  await assert.rejects(
    loadConfig(`taskset = { id = "cfg-tools" }`, {}, { taskset: withTools }),
    /harness\.id: taskset "cfg-tools" has tools/,
  );
  await assert.rejects(load('harness.id = "nope"'), /harness\.id: unknown harness "nope"/);
  // A runtime's own options are checked by its schema (the sandbox's), naming the key.
  await assert.rejects(
    load('harness.runtime = { type = "sandbox", memory_mb = "lots" }'),
    /harness\.runtime\.memory_mb: expected number, got "lots"/,
  );
  await assert.rejects(
    load('harness.runtime = { type = "sandbox", memroy_mb = 1 }'),
    /harness\.runtime\.memroy_mb: unknown key \(did you mean "memory_mb"\?\)/,
  );
});

test("a runtime type naming an Object member is an unknown runtime, not Object()", async () => {
  for (const type of ["constructor", "toString"]) {
    await assert.rejects(
      loadConfig(`${T}harness.runtime = { type = "${type}" }`, {}, { taskset }),
      (e: unknown) => {
        assert.ok(e instanceof ConfigError, String(e));
        assert.match(e.message, new RegExp(`^harness\\.runtime\\.type: unknown runtime "${type}"`));
        return true;
      },
    );
  }
});

test("toolset names are unique across the taskset, the config and the harness, checked with the config", async () => {
  const echo = { name: "echo", description: "echo", parameters: { type: "object" }, execute: () => "x" };
  // A taskset toolset named like the default harness's coding tools: found by loadConfig, not per rollout.
  const coding = defineTaskset({
    ...taskset,
    id: "cfg-coding",
    toolsets: [{ name: "coding", tools: [echo] }],
  });
  await assert.rejects(
    loadConfig('taskset.id = "cfg-coding"\nharness.id = "default"', {}, { taskset: coding }),
    (e: unknown) => {
      assert.ok(e instanceof ConfigError, String(e));
      assert.equal(e.path, "toolsets");
      assert.match(
        e.message,
        /^toolsets: two toolsets are named "coding" \(a toolset of taskset "cfg-coding" and a toolset of harness "default"\)/,
      );
      return true;
    },
  );
  // Without the coding tools the same taskset is fine.
  await loadConfig('taskset.id = "cfg-coding"\nharness.id = "tools"', {}, { taskset: coding });
  const math = defineTaskset({ ...taskset, id: "cfg-math", tools: [echo], toolPrefix: "math" });
  await assert.rejects(
    loadConfig(
      'taskset.id = "cfg-math"\nharness.id = "tools"\n[[toolsets]]\nname = "math"\nurl = "http://127.0.0.1:9/mcp"\n',
      {},
      { taskset: math },
    ),
    /two toolsets are named "math" \(the tools of taskset "cfg-math" and a \[\[toolsets\]\] entry\)/,
  );
});
