/**
 * The `default` harness is V1's coding agent: bash and edit with V1's semantics, run in the
 * rollout's runtime — inside bubblewrap when the runtime is the sandbox (a write outside the
 * workdir fails, the network is closed) — plus the task's tools under `<server>_<tool>`.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { test } from "node:test";
import { bashTool } from "../../packages/core/src/harnesses/coding/bash.ts";
import { editTool } from "../../packages/core/src/harnesses/coding/edit.ts";
import { executeToolCall } from "../../packages/core/src/interception/tools.ts";
import type { Runtime } from "../../packages/core/src/runtimes/runtime.ts";
import { probeSandbox } from "../../packages/core/src/runtimes/sandbox/probe.ts";
import { SandboxRuntime } from "../../packages/core/src/runtimes/sandbox.ts";
import { SubprocessRuntime } from "../../packages/core/src/runtimes/subprocess.ts";
import { defineTaskset } from "../../packages/core/src/task.ts";
import { contentText, type Message } from "../../packages/core/src/types.ts";
import { envFor } from "../runtime/helpers/env.ts";
import { callTool, ScriptedClient, say } from "../runtime/helpers/scripted-client.ts";

const available = await probeSandbox({ bwrap: null, mode: "auto" });
const noSandbox = available.ok ? false : `bubblewrap cannot sandbox here: ${available.reason}`;

async function withRuntime<T>(rt: Runtime, fn: (rt: Runtime) => Promise<T>): Promise<T> {
  await rt.start();
  try {
    return await fn(rt);
  } finally {
    await rt.stop();
  }
}

const run = (rt: Runtime, tool: typeof bashTool, args: Record<string, unknown>) =>
  executeToolCall([tool], tool.name, args, { task: { idx: 0 }, trace: null as never, runtime: rt });

test(
  "bash in the sandbox: stdout then stderr, a write outside the workdir fails, the network is closed",
  { skip: noSandbox },
  async () => {
    const outside = `/var/tmp/envroll-escape-${randomBytes(6).toString("hex")}`;
    const listener = createServer(() => {}).listen(0, "127.0.0.1");
    await new Promise((r) => listener.once("listening", r));
    const port = (listener.address() as { port: number }).port;
    try {
      await withRuntime(new SandboxRuntime({ type: "sandbox" }), async (rt) => {
        const mixed = await run(rt, bashTool, { command: "echo out; echo err >&2; exit 3" });
        assert.deepEqual(
          mixed,
          { content: "out\nerr\n", isError: false },
          "V1: stdout + stderr, no exit status",
        );
        const inside = await run(rt, bashTool, { command: "echo hi > note.txt && cat note.txt && pwd" });
        assert.equal(inside.content, `hi\n${rt.workdir}\n`);
        const escaped = await run(rt, bashTool, {
          command: `echo x > ${outside} && echo WROTE || echo REFUSED`,
        });
        assert.match(escaped.content, /REFUSED/);
        assert.equal(existsSync(outside), false, "the host file system was written");
        const net = await run(rt, bashTool, {
          command: `python3 -c "import socket; socket.create_connection(('127.0.0.1', ${port}), timeout=2)" && echo CONNECTED || echo CLOSED`,
        });
        assert.match(net.content, /CLOSED/);
        assert.doesNotMatch(net.content, /CONNECTED/);
      });
    } finally {
      listener.close();
    }
  },
);

test("edit: V1's rules and messages (exactly one occurrence, path as given)", async () => {
  await withRuntime(new SubprocessRuntime(), async (rt) => {
    await rt.writeFile("a.txt", "one two two\n");
    const edit = (args: Record<string, unknown>) => run(rt, editTool, args).then((r) => r.content);
    assert.equal(await edit({ old_str: "x", new_str: "y" }), "error: 'path' is required");
    assert.equal(
      await edit({ path: "a.txt", old_str: "x", new_str: 3 }),
      "error: 'old_str' and 'new_str' must be strings",
    );
    assert.equal(
      await edit({ path: "a.txt", old_str: "", new_str: "y" }),
      "error: 'old_str' must be a non-empty string",
    );
    assert.equal(await edit({ path: "nope.txt", old_str: "x", new_str: "y" }), "error: nope.txt not found");
    assert.equal(
      await edit({ path: "a.txt", old_str: "two", new_str: "2" }),
      "error: old_str must appear exactly once in a.txt (found 2)",
    );
    assert.equal(
      await edit({ path: "a.txt", old_str: "three", new_str: "3" }),
      "error: old_str must appear exactly once in a.txt (found 0)",
    );
    assert.match(
      await edit({ path: "/etc/hostname", old_str: "a", new_str: "b" }),
      /^error: could not read \/etc\/hostname: /,
    );
    assert.equal(await edit({ path: "a.txt", old_str: "one", new_str: "$&1" }), "Edited a.txt");
    assert.equal(
      new TextDecoder().decode(await rt.readFile("a.txt")),
      "$&1 two two\n",
      "replacement is literal",
    );
    const failed = await run(rt, editTool, { path: "a.txt", old_str: "zzz", new_str: "" });
    assert.equal(failed.isError, true, "a failed edit is an error result (MCP isError)");
  });
});

const notes = defineTaskset({
  id: "notes",
  load: () => [{ idx: 0, system_prompt: "Keep notes.", prompt: "Write the answer to answer.txt." }],
  toolPrefix: "notes",
  tools: [
    {
      name: "count",
      description: "Characters in a string.",
      parameters: { type: "object", properties: { text: { type: "string" } } },
      execute: (a: { text: string }) => String(a.text.length),
    },
  ],
  rewards: [
    {
      name: "file",
      needsRuntime: true,
      fn: async ({ runtime }) =>
        new TextDecoder().decode(await runtime!.readFile("answer.txt")) === "42\n" ? 1 : 0,
    },
  ],
});

test("default harness: bash, edit and <server>_<tool> in one episode; V1 errors for bad calls; calls on the trace", async () => {
  const script = [
    callTool("bash", { command: "printf '41\\n' > answer.txt && cat answer.txt" }, "c1"),
    callTool("edit", { path: "answer.txt", old_str: "41", new_str: "42" }, "c2"),
    callTool("notes_count", { text: "four" }, "c3"),
    callTool("count", { text: "bare" }, "c4"),
    callTool("bash", "{oops", "c5"),
    callTool("bash", "[1]", "c6"),
    say("done"),
  ];
  let i = 0;
  const client = new ScriptedClient(() => script[i++]!);
  const env = await envFor(notes, "", { "harness.id": "default" });
  try {
    const [r] = await env.runGroup(0, 1, { client });
    assert.deepEqual(r!.errors, []);
    assert.equal(r!.reward, 1, "bash and edit ran in the rollout's workdir");
    const first = client.requests[0]!;
    assert.deepEqual(
      first.tools.map((t) => t.name),
      ["bash", "edit", "notes_count"],
    );
    const system = first.messages[0] as Message;
    assert.match(contentText(system.content), /^You are a coding agent[\s\S]*`edit`[\s\S]*\n\nKeep notes\.$/);
    const tools = r!.nodes
      .filter((n) => n.message.role === "tool")
      .map((n) => contentText(n.message.content as string));
    assert.deepEqual(tools.slice(0, 4), ["41\n", "Edited answer.txt", "4", "error: unknown tool 'count'"]);
    assert.match(
      tools[4]!,
      /^error: invalid JSON in tool arguments \(.+\); resend the call with valid JSON$/,
    );
    assert.equal(tools[5], "error: tool arguments must be a JSON object, got list; resend as an object");
    const calls = r!.info["tool_calls"] as { server: string; tool: string; is_error: boolean }[];
    assert.deepEqual(
      calls.map((c) => `${c.server}_${c.tool}:${c.is_error}`),
      ["coding_bash:false", "coding_edit:false", "notes_count:false"],
    );
  } finally {
    await env.close();
  }
});

test("default harness: disabled_tools removes edit from the tools and the framing", async () => {
  const client = new ScriptedClient(() => say("ok"));
  const env = await envFor(notes, 'harness.disabled_tools = ["edit"]', { "harness.id": "default" });
  try {
    await env.runGroup(0, 1, { client });
    assert.deepEqual(
      client.requests[0]!.tools.map((t) => t.name),
      ["bash", "notes_count"],
    );
    assert.doesNotMatch(contentText((client.requests[0]!.messages[0] as Message).content), /`edit`/);
  } finally {
    await env.close();
  }
});
