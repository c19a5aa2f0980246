import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { isBuilt, lazySchema } from "../../packages/core/src/lazy-schema.ts";
import { loadConfig } from "../../packages/core/src/loaders/config.ts";
import { MessageSchema, TaskDataSchema } from "../../packages/core/src/types.ts";
import { TS_LOADER } from "../ts-loader.ts";

// In a fresh process: the suite runs several test files in one process, and any of them may
// have built a schema already.
test("an eval's config builds only the schemas of the tables it has", () => {
  const helper = fileURLToPath(new URL("./helpers/eval-config-schemas.ts", import.meta.url));
  const report = JSON.parse(
    execFileSync(process.execPath, ["--import", TS_LOADER, helper], { encoding: "utf8", timeout: 120_000 }),
  ) as {
    before: string[];
    after: string[];
    unused: string[];
    harness: string;
    timeout: unknown;
    toolsets: unknown;
  };
  assert.deepEqual(report.before, [], "built before any use");
  assert.equal(report.harness, "null");
  assert.deepEqual(report.timeout, { setup: null, rollout: null, finalize: null, scoring: null });
  assert.deepEqual(report.toolsets, []);
  assert.deepEqual(report.after.sort(), ["EnvConfigSchema", "HarnessSchema"]);
  assert.ok(report.unused.length >= 12, `the helper checks ${report.unused.join(", ")}`);
});

test("a lazy schema is the schema it builds: parse, extend, shape, instanceof, JSON schema", () => {
  let builds = 0;
  const build = () => {
    builds++;
    return z.object({ a: z.string(), n: z.int().default(1) });
  };
  const lazy = lazySchema(build);
  const direct = build();
  builds = 0;
  assert.equal(isBuilt(lazy), false);
  assert.deepEqual(lazy.parse({ a: "x" }), { a: "x", n: 1 });
  assert.equal(isBuilt(lazy), true);
  assert.equal(lazy.safeParse({ a: 1 }).success, false);
  assert.ok(lazy instanceof z.ZodObject);
  assert.ok(lazy instanceof z.ZodType);
  assert.deepEqual(Object.keys(lazy.shape), ["a", "n"]);
  assert.deepEqual(lazy.extend({ b: z.boolean() }).parse({ a: "y", b: true }), { a: "y", n: 1, b: true });
  assert.deepEqual(z.toJSONSchema(lazy), z.toJSONSchema(direct));
  assert.deepEqual(z.object({ inner: lazy }).parse({ inner: { a: "z" } }), { inner: { a: "z", n: 1 } });
  // Spread reads the built instance's own keys through the proxy (zod's `_zod` is hidden).
  assert.ok(Object.keys({ ...lazy }).includes("def"));
  assert.ok(!Object.keys({ ...lazy }).includes("_zod"));
  assert.equal(builds, 1, "built once");
  type Out = z.infer<typeof lazy>;
  const typed: Out = { a: "t", n: 2 };
  assert.equal(typed.n, 2);
});

test("exported schemas keep working for tasksets: TaskDataSchema.extend, MessageSchema", () => {
  const Row = TaskDataSchema.extend({ answer: z.string() });
  assert.deepEqual(Row.parse({ idx: 0, prompt: "p", answer: "a" }), { idx: 0, prompt: "p", answer: "a" });
  assert.equal(Row.safeParse({ idx: 0, prompt: [{ role: "user", content: 3 }], answer: "a" }).success, false);
  assert.deepEqual(MessageSchema.parse({ role: "user", content: "hi" }), { role: "user", content: "hi" });
  assert.equal(MessageSchema.safeParse({ role: "robot", content: "hi" }).success, false);
});

test("a deferred table still names the misspelt key and its nearest name", async () => {
  await assert.rejects(
    loadConfig(null, { "taskset.id": "reverse-text", "harness.acp.comand": ["x"] }),
    /^ConfigError: harness\.acp\.comand: unknown key \(did you mean "command"\?\)$/m,
  );
  await assert.rejects(
    loadConfig(null, { "taskset.id": "reverse-text", "timeout.setpu": 3 }),
    /timeout\.setpu: unknown key \(did you mean "setup"\?\)/,
  );
  await assert.rejects(
    loadConfig(null, { "taskset.id": "reverse-text", "client.type": "x" }),
    /^ConfigError: client\.type: expected one of "eval", "train", got "x"$/m,
  );
  await assert.rejects(
    loadConfig(null, { "taskset.id": "reverse-text", "client.type": "eval", "client.renderer": "qwen3" }),
    /^ConfigError: client\.renderer: unknown key$/m,
  );
  await assert.rejects(
    loadConfig('taskset.id = "reverse-text"\n[[toolsets]]\nname = "m"\n', {}),
    /toolsets\.0\.command: give exactly one of command or url/,
  );
});
