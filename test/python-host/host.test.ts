/**
 * The Python taskset host without verifiers (CI): protocol, runtime callbacks, error mapping,
 * concurrency on one process, restarts. The taskset is fake_v1/fake_env_v1, written against a
 * FAKE V1-shaped `verifiers` (fake_v1/README.md); the real one is tested in *-v1.test.ts.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { loadEnvironment } from "../../packages/core/src/environment.ts";
import { ConfigError } from "../../packages/core/src/errors.ts";
import { loadConfig } from "../../packages/core/src/loaders/config.ts";
import { PythonHostError, sharedHost } from "../../packages/core/src/python/host.ts";
import { ReplayClient } from "./replay-client.ts";

const HERE = dirname(fileURLToPath(import.meta.url));
const FAKE = join(HERE, "fake_v1");
const ROOT = resolve(HERE, "../..");

/** The project's venv (CI builds it) or python3, if it has pydantic. */
function pickPython(): string | null {
  for (const p of [join(ROOT, ".venv", "bin", "python"), "python3"]) {
    if (p.includes("/") && !existsSync(p)) continue;
    if (spawnSync(p, ["-c", "import pydantic"]).status === 0) return p;
  }
  return null;
}
const PYTHON = pickPython();
const opts = PYTHON ? {} : { skip: "no Python with pydantic (run `node scripts/py-env.mjs`)" };

/** A config for the fake taskset (`keys`: more `[taskset]` entries, e.g. `, size = 40`). */
function toml(keys = "") {
  return [
    'model = "m"',
    "num_rollouts = 2",
    'harness = { id = "null" }',
    `python = { executable = ${JSON.stringify(PYTHON)}, path = ${JSON.stringify([FAKE])} }`,
    `taskset = { id = "org/fake-env-v1@9"${keys} }`,
  ].join("\n");
}

const host = () => sharedHost({ python: PYTHON, path: [FAKE] });

test(
  "a Python taskset runs its own hooks: runtime callbacks, weights, group rewards, origin",
  opts,
  async () => {
    const env = await loadEnvironment(await loadConfig(toml()));
    assert.deepEqual(
      env.taskset.origin && [
        env.taskset.origin.language,
        env.taskset.origin.module,
        env.taskset.origin.version,
      ],
      ["python", "fake_env_v1", "9.9.9"],
    );
    assert.deepEqual(env.taskset.hiddenFields, ["answer"], "the taskset's hidden_fields");
    assert.equal(env.tasks.length, 3);
    const [a, b] = await env.runGroup(0, 2, { client: new ReplayClient(["it is ans0"]) });
    assert.deepEqual(a!.errors, []);
    // setup wrote "task 0" through the runtime; the metric read it back with `cat`.
    assert.deepEqual(a!.metrics, { echo_len: 6, exit: 0 });
    assert.deepEqual(a!.rewards, { exact: 0.5, first: 0.25 });
    assert.deepEqual(b!.rewards, { exact: 0.5, first: 0 });
    assert.equal(a!.reward, 0.75);
  },
);

test("Python exceptions become typed errors carrying the Python traceback", opts, async () => {
  const env = await loadEnvironment(await loadConfig(toml()));
  const [setup] = await env.runGroup(1, 2, { client: new ReplayClient(["x"]) });
  assert.equal(setup!.errors[0]!.type, "TaskError");
  assert.match(setup!.errors[0]!.message, /ValueError: fake failure in setup/);
  assert.match(setup!.errors[0]!.traceback ?? "", /fake_env_v1\/__init__\.py", line \d+, in setup/);
  const [score] = await env.runGroup(0, 2, { client: new ReplayClient(["FAIL-SCORE"]) });
  assert.equal(score!.errors[0]!.type, "TaskError");
  assert.match(score!.errors[0]!.traceback ?? "", /in exact/);
});

test("a user simulator that opens and ends the conversation; UserError on failure", opts, async () => {
  const env = await loadEnvironment(await loadConfig(toml(", user_opens = true")));
  const client = new ReplayClient(["ans0 it is"]);
  const [t] = await env.runGroup(0, 2, { client });
  assert.deepEqual(t!.errors, []);
  assert.equal(client.requests[0]![0]!.content, "Say ans0.");
  assert.equal(t!.stop_condition, "agent_completed");
  assert.equal(t!.rewards["exact"], 0.5);
  const [u] = await env.runGroup(0, 2, { client: new ReplayClient(["FAIL-USER"]) });
  assert.equal(u!.errors[0]!.type, "UserError");
  assert.match(u!.errors[0]!.traceback ?? "", /in respond/);
  // Stops are checked before every model call: the user's "Try again." leads to a check that raises.
  const [stop] = await env.runGroup(2, 2, { client: new ReplayClient(["FAIL-STOP"]) });
  assert.equal(stop!.errors[0]!.type, "TaskError");
  assert.match(stop!.errors[0]!.message, /fake failure in stop/);
});

test(
  "one host serves concurrent rollouts; the taskset's task keys reach its pydantic config",
  opts,
  async () => {
    const h = host();
    const starts = h.starts;
    const env = await loadEnvironment(await loadConfig(toml(", size = 40, task = { bonus = 0.25 }")));
    const groups = await Promise.all(
      env.tasks.map((_, i) => env.runGroup(i, 2, { client: new ReplayClient(["nope"]) })),
    );
    const ok = groups.flat().filter((t) => t.errors.length === 0);
    assert.ok(ok.length >= 52, `${ok.length} rollouts ok`); // every third task's setup fails by design
    for (const t of ok) assert.equal(t.rewards["exact"], 0.125);
    assert.equal(h.starts, starts, "no new process");
  },
);

test("config errors name the TOML key, from the taskset's own model", opts, async () => {
  await assert.rejects(
    loadConfig(toml(", sise = 3")),
    /taskset\.sise: unknown key \(did you mean "size"\?\)/,
  );
  await assert.rejects(loadConfig(toml(", task = { bonsu = 1 }")), /taskset\.task\.bonsu: unknown key/);
  // Values by the taskset's pydantic model, asked by the config validator: refused by loadConfig,
  // before any task row loads.
  await assert.rejects(loadConfig(toml(', fail = 3, size = "many"')), (e: unknown) => {
    assert.ok(e instanceof ConfigError);
    assert.equal(e.path, "taskset.size");
    assert.match(e.message, /taskset\.size: Input should be a valid integer/);
    assert.match(e.message, /taskset\.fail: Input should be a valid string/);
    return true;
  });
});

test(
  "a dead host fails only its in-flight rollouts (PythonHostError); the next one restarts it",
  opts,
  async () => {
    const env = await loadEnvironment(await loadConfig(toml()));
    const h = host();
    const before = h.starts;
    const [died] = await env.runGroup(0, 2, { client: new ReplayClient(["EXIT"]) });
    assert.equal(died!.errors[0]!.type, "PythonHostError");
    assert.match(died!.errors[0]!.message, /exited \(code 3\)/);
    const [after] = await env.runGroup(0, 2, { client: new ReplayClient(["ans0"]) });
    assert.deepEqual(after!.errors, []);
    assert.equal(after!.rewards["exact"], 0.5);
    // Restarted (the group's rewards or the next rollout started it), the taskset loaded again.
    assert.equal(h.starts, before + 1);
    // Killed from outside while a rollout is scoring.
    const slow = env.runGroup(2, 2, { client: new ReplayClient(["SLOW"]) });
    await new Promise((r) => setTimeout(r, 300));
    h.kill();
    const [killed] = await slow;
    assert.equal(killed!.errors[0]!.type, "PythonHostError");
  },
);

test("no silent substitution: a Python id that is not importable is not a built-in", opts, async () => {
  await assert.rejects(
    loadConfig(`python = { executable = ${JSON.stringify(PYTHON)} }\ntaskset = { id = "reverse_text_v1" }`),
    (e: unknown) => {
      assert.ok(e instanceof ConfigError);
      assert.match(e.message, /unknown taskset "reverse_text_v1".*no Python module importable/s);
      return true;
    },
  );
  const builtin = await loadConfig('taskset = { id = "reverse-text" }');
  assert.equal(builtin.taskset.id, "reverse-text");
  // A host answers malformed requests without dying.
  await assert.rejects(host().request("nope"), /unknown op 'nope'/);
  assert.ok(host().pid !== null);
});

test("an interpreter that cannot run is reported, not substituted", async () => {
  await assert.rejects(
    sharedHost({ python: "/nonexistent/python3" }).request("hello"),
    (e: unknown) => e instanceof PythonHostError && /could not run/.test(e.message),
  );
});
