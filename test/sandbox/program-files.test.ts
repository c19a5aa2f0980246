/**
 * A harness program's own files under the sandbox runtime (issue 37): the sandbox hides the
 * host, so the files `harness.command` names (made absolute when the config loaded) are handed
 * to the runtime by the rollout and shown read-only at the same path.
 */
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { registerRuntime } from "../../packages/core/src/runtimes/index.ts";
import { probeSandbox } from "../../packages/core/src/runtimes/sandbox/probe.ts";
import { importRoots } from "../../packages/core/src/runtimes/sandbox/program-files.ts";
import { SandboxRuntime } from "../../packages/core/src/runtimes/sandbox.ts";
import { SubprocessRuntime } from "../../packages/core/src/runtimes/subprocess.ts";
import { defineTaskset } from "../../packages/core/src/task.ts";
import { envFor } from "../runtime/helpers/env.ts";
import { ScriptedClient, say } from "../runtime/helpers/scripted-client.ts";

const available = await probeSandbox({ bwrap: null, mode: "auto" });
const skip = available.ok ? false : `bubblewrap cannot sandbox here: ${available.reason}`;

function programFile(): string {
  // mkdtemp makes a 0700 folder: the sandbox user could not even reach it on the host.
  const dir = mkdtempSync(join(tmpdir(), "envroll-program-"));
  const file = join(dir, "agent.py");
  writeFileSync(file, "print('from the host')\n");
  return file;
}

test(
  "the sandbox shows the program's files read-only, and nothing else of their folder",
  { skip },
  async () => {
    const file = programFile();
    writeFileSync(join(file, "..", "secret.txt"), "not for the program\n");
    const rt = new SandboxRuntime({ type: "sandbox" }, { readOnlyPaths: [file] });
    await rt.start();
    try {
      const read = await rt.run(["cat", file]);
      assert.equal(read.exitCode, 0, read.stderr);
      assert.equal(read.stdout, "print('from the host')\n");
      const write = await rt.run(["sh", "-c", `echo changed >> ${file}`]);
      assert.notEqual(write.exitCode, 0, "read-only");
      assert.equal(readFileSync(file, "utf8"), "print('from the host')\n");
      const sibling = await rt.run(["cat", join(file, "..", "secret.txt")]);
      assert.notEqual(sibling.exitCode, 0, "only the named file is shown");
    } finally {
      await rt.stop();
    }
    const without = new SandboxRuntime({ type: "sandbox" });
    await without.start();
    try {
      assert.notEqual((await without.run(["cat", file])).exitCode, 0, "hidden unless named");
    } finally {
      await without.stop();
    }
  },
);

/** A project folder the sandbox uid can enter: a Node program, the package it imports, a secret. */
function nodeProject(): { file: string; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), "envroll-project-"));
  chmodSync(dir, 0o755);
  mkdirSync(join(dir, "node_modules", "greeter"), { recursive: true });
  writeFileSync(join(dir, "node_modules", "greeter", "package.json"), '{"name":"greeter","main":"index.js"}');
  writeFileSync(
    join(dir, "node_modules", "greeter", "index.js"),
    "module.exports = 'hello from a package';\n",
  );
  mkdirSync(join(dir, "src"));
  writeFileSync(join(dir, "src", "agent.mjs"), "import g from 'greeter';\nconsole.log(g);\n");
  writeFileSync(join(dir, "answers.txt"), "42\n");
  return { file: join(dir, "src", "agent.mjs"), dir };
}

test("a program's import roots: node_modules folders above it, and the virtual environment it sits in", () => {
  const { file, dir } = nodeProject();
  assert.deepEqual(
    importRoots(file).filter((d) => d.startsWith(dir)),
    [join(dir, "node_modules")],
  );
  mkdirSync(join(dir, "venv", "bin"), { recursive: true });
  writeFileSync(join(dir, "venv", "pyvenv.cfg"), "home = /usr/bin\n");
  assert.ok(importRoots(join(dir, "venv", "bin", "python")).includes(join(dir, "venv")));
});

test(
  "a Node program in the sandbox imports its packages; the rest of its project stays hidden",
  { skip },
  async () => {
    const { file, dir } = nodeProject();
    const rt = new SandboxRuntime({ type: "sandbox" }, { readOnlyPaths: [file] });
    await rt.start();
    try {
      const run = await rt.run([process.execPath, file]);
      assert.equal(run.exitCode, 0, run.stderr);
      assert.equal(run.stdout, "hello from a package\n");
      assert.notEqual((await rt.run(["cat", join(dir, "answers.txt")])).exitCode, 0, "not shown");
      const write = await rt.run([
        "sh",
        "-c",
        `echo x > ${join(dir, "node_modules", "greeter", "index.js")}`,
      ]);
      assert.notEqual(write.exitCode, 0, "packages are read-only");
    } finally {
      await rt.stop();
    }
  },
);

test("a rollout hands the command harness's files to its runtime", async () => {
  const file = programFile();
  const agent = join(file, "..", "agent.mjs");
  writeFileSync(
    agent,
    `const r = await fetch(process.env.OPENAI_BASE_URL + "/chat/completions", { method: "POST",
  headers: { authorization: "Bearer " + process.env.OPENAI_API_KEY, "content-type": "application/json" },
  body: JSON.stringify({ model: "m", messages: JSON.parse(process.env.ENVROLL_PROMPT) }) });
process.exit(r.ok ? 0 : 1);
`,
  );
  const seen: (readonly string[] | undefined)[] = [];
  registerRuntime("program-files-probe", (_spec, ctx) => {
    seen.push(ctx.readOnlyPaths);
    return new SubprocessRuntime({ forwardEnv: ctx.forwardEnv });
  });
  const taskset = defineTaskset({ id: "one", load: () => [{ idx: 0, prompt: "hi" }] });
  const env = await envFor(
    taskset,
    `[harness]\ncommand = ["node", ${JSON.stringify(agent)}, "--flag"]\nruntime = { type = "program-files-probe" }`,
  );
  try {
    const [r] = await env.runGroup(0, 1, { client: new ScriptedClient(() => say("ok")) });
    assert.deepEqual(r!.errors, []);
    assert.deepEqual(r!.info["harness_command"], ["node", agent, "--flag"]);
  } finally {
    await env.close();
  }
  assert.deepEqual(seen, [[agent]]);
});
