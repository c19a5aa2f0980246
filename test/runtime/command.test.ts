import assert from "node:assert/strict";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import type { HarnessConfig } from "../../packages/core/src/config/schema.ts";
import { commandHarness } from "../../packages/core/src/harnesses/command.ts";
import { InterceptionServer } from "../../packages/core/src/interception/server.ts";
import { RolloutToolbox } from "../../packages/core/src/mcp/toolbox.ts";
import { SubprocessRuntime } from "../../packages/core/src/runtimes/subprocess.ts";
import { defineTaskset } from "../../packages/core/src/task.ts";
import { contentText, type Message } from "../../packages/core/src/types.ts";
import { calculator } from "../interception/harness-check.ts";
import { envFor } from "./helpers/env.ts";
import { bisectGame } from "./helpers/games.ts";
import { callTool, ScriptedClient, say } from "./helpers/scripted-client.ts";
import { bareSession } from "./helpers/session.ts";

const agent = fileURLToPath(new URL("./agents/tool_agent.py", import.meta.url));
const command = `harness.command = ["python3", ${JSON.stringify(agent)}]`;

/** Calls add, then mul on add's result, then answers with mul's result. */
const calcPolicy = (messages: readonly Message[]) => {
  const tools = messages.filter((m) => m.role === "tool");
  if (tools.length === 0) return callTool("add", { a: 2, b: 3 }, "c1");
  if (tools.length === 1) return callTool("mul", { a: Number(contentText(tools[0]!.content)), b: 4 }, "c2");
  return say(contentText(tools[1]!.content));
};

test("a Python (urllib) command harness completes a multi-turn tool episode through interception", async () => {
  const client = new ScriptedClient(calcPolicy);
  const env = await envFor(calculator, command, { "sampling.temperature": 0.3 });
  try {
    const records = await env.runGroup(0, 2, { client });
    for (const r of records) {
      assert.deepEqual(r.errors, []);
      assert.equal(r.stop_condition, "agent_completed");
      assert.equal(r.num_turns, 3);
      assert.equal(r.last_reply, "20");
      assert.equal(r.reward, 1);
      assert.equal(r.branches.length, 1, "the program's re-sent history dedups onto one path");
      const tools = r.nodes.filter((n) => n.message.role === "tool").map((n) => n.message.content);
      assert.deepEqual(tools, ["5", "20"]);
    }
    const first = client.requests[0]!;
    assert.deepEqual(
      first.tools.map((t) => t.name),
      ["add", "mul"],
      "ENVROLL_TOOLS reached the program and came back",
    );
    assert.equal(first.messages[0]!.role, "system");
    assert.equal(first.sampling["temperature"], 0.3, "config sampling beats the program's temperature=1.7");
  } finally {
    await env.close();
  }
});

test("a command harness that exits non-zero fails the rollout with HarnessError and the stderr tail", async () => {
  const env = await envFor(calculator, `${command}\nharness.env = { AGENT_MODE = "crash" }`);
  try {
    const [r] = await env.runGroup(0, 1, { client: new ScriptedClient(calcPolicy) });
    assert.equal(r!.errors[0]!.type, "HarnessError");
    assert.match(
      r!.errors[0]!.message,
      /exited with code 3( \(it ran in the sandbox[^)]*\))?: x+agent crashed on purpose$/,
    );
    assert.ok(r!.errors[0]!.message.length < 2300, "only the last 2000 characters of stderr");
    assert.equal(r!.stop_condition, "error");
  } finally {
    await env.close();
  }
});

test("over HTTP a stop condition refuses with 400 'rollout stopped' and the program exits cleanly", async () => {
  const ts = defineTaskset({
    ...calculator,
    id: "calc-once",
    stops: [{ name: "one_turn", fn: ({ trace }) => trace.numTurns >= 1 }],
  });
  const env = await envFor(ts, command);
  try {
    const [r] = await env.runGroup(0, 1, { client: new ScriptedClient(calcPolicy) });
    assert.deepEqual(r!.errors, []);
    assert.equal(r!.stop_condition, "one_turn");
    assert.equal(r!.num_turns, 1);
  } finally {
    await env.close();
  }
});

test("a user-simulator game runs through the command harness too (the server injects the opening)", async () => {
  const env = await envFor(bisectGame.taskset, command);
  try {
    const client = new ScriptedClient(bisectGame.policy);
    const [r] = await env.runGroup(0, 1, { client });
    assert.deepEqual(r!.errors, []);
    assert.equal(r!.stop_condition, "solved");
    assert.equal(r!.reward, 1);
    assert.equal(client.requests.length, 3, "the whole game ran inside the program's first request");
  } finally {
    await env.close();
  }
});

test("a command killed by the runtime's own timeout stops as harness_timeout, not agent_completed", async () => {
  // Called directly, without the rollout's outer timer: the runtime's timeout alone must decide.
  const task = { idx: 0, prompt: "q" };
  const runtime = new SubprocessRuntime();
  await runtime.start();
  const server = new InterceptionServer();
  const { session, trace, signal } = bareSession(new ScriptedClient(() => say("x")), { task, runtime });
  try {
    await commandHarness.run({
      task,
      session,
      runtime,
      config: {
        id: "command",
        command: ["sleep", "5"],
        runtime: { type: "subprocess" },
        env: {},
        forward_env: [],
        disabled_tools: null,
      } as HarnessConfig,
      prompt: [],
      tools: [],
      signal,
      timeoutMs: 200,
      interception: async () => server,
      toolbox: new RolloutToolbox([], { trace }),
      endpoint: async () => {
        const reg = await server.register(session);
        const origin = reg.baseUrl.replace(/\/v1$/, "");
        return { baseUrl: reg.baseUrl, origin, secret: reg.secret, serverSecret: reg.serverSecret };
      },
    });
    assert.equal(trace.stopCondition, "harness_timeout");
  } finally {
    await runtime.stop();
    await server.close();
  }
});
