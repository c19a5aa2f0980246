/**
 * Task tools over MCP: the interception server serves each rollout's toolsets at /mcp/<server>
 * (secret-authenticated, zod schemas, failures as isError) with V1's state routes beside them;
 * a stdio server declared by a taskset serves the built-in coding agent and an external Python
 * program alike, per rollout or once per worker; every call lands on the trace.
 */

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { z } from "zod";
import { InterceptionServer } from "../../packages/core/src/interception/server.ts";
import { SubprocessRuntime } from "../../packages/core/src/runtimes/subprocess.ts";
import { defineTaskset } from "../../packages/core/src/task.ts";
import { contentText } from "../../packages/core/src/types.ts";
import { envFor } from "../runtime/helpers/env.ts";
import { callTool, ScriptedClient, say } from "../runtime/helpers/scripted-client.ts";
import { bareSession, bareWiring } from "../runtime/helpers/session.ts";

const counter = [
  process.execPath,
  "--import",
  import.meta.resolve("tsx"),
  fileURLToPath(new URL("./servers/counter.ts", import.meta.url)),
];
const agent = fileURLToPath(new URL("../../python/examples/mcp_agent.py", import.meta.url));

/** A Python with the `mcp` package: $ENVROLL_TEST_PYTHON, the project's .venv, or python3. */
function mcpPython(): string | null {
  const venv = fileURLToPath(new URL("../../.venv/bin/python", import.meta.url));
  for (const p of [process.env["ENVROLL_TEST_PYTHON"], existsSync(venv) ? venv : undefined, "python3"])
    if (p && spawnSync(p, ["-c", "import mcp"]).status === 0) return p;
  return null;
}
const python = mcpPython();

const AddArgs = z.object({ a: z.number(), b: z.number() });
const demo = defineTaskset({
  id: "mcp-demo",
  load: () => [{ idx: 0, prompt: "Count to two." }],
  toolPrefix: "calc",
  tools: [
    {
      name: "add",
      description: "a + b",
      parameters: z.toJSONSchema(AddArgs) as Record<string, unknown>,
      argsSchema: AddArgs,
      execute: (x: z.infer<typeof AddArgs>) => String(x.a + x.b),
    },
    {
      name: "fail",
      description: "always throws",
      parameters: { type: "object" },
      execute: () => {
        throw new Error("boom");
      },
    },
  ],
  toolsets: [{ name: "counter", command: counter }],
  stateSchema: z.strictObject({ note: z.string() }),
  stops: [{ name: "noted", fn: ({ trace }) => trace.state["note"] === "done" }],
});

test("/mcp/<server>: secret-authenticated MCP, zod schemas, isError results; /state and /task", async () => {
  const task = { idx: 0, prompt: "Count to two." };
  const runtime = new SubprocessRuntime();
  await runtime.start();
  const server = new InterceptionServer();
  const { session, trace, signal } = bareSession(new ScriptedClient(() => say("x")), {
    task,
    handlers: demo,
    runtime,
    tools: demo.tools as never,
  });
  const wiring = bareWiring(demo, task, runtime, server, signal);
  const context = () => ({ task, trace, runtime, signal });
  await wiring.bind(session, demo.tools as never, context, []);
  const ep = await wiring.endpoint();
  const connect = async (name: string, secret = ep.secret) => {
    const client = new Client({ name: "test", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${ep.origin}/mcp/${name}`), {
        requestInit: { headers: { Authorization: `Bearer ${secret}` } },
      }),
    );
    return client;
  };
  try {
    await assert.rejects(connect("calc", "wrong-secret"), /401|unknown rollout secret/);
    const calc = await connect("calc");
    const listed = (await calc.listTools()).tools;
    assert.deepEqual(
      listed.map((t) => t.name),
      ["add", "fail"],
    );
    assert.deepEqual(listed[0]!.inputSchema["required"], ["a", "b"], "the schema comes from the zod schema");
    assert.deepEqual(await calc.callTool({ name: "add", arguments: { a: 2, b: 5 } }), {
      content: [{ type: "text", text: "7" }],
      isError: false,
    });
    const failed = await calc.callTool({ name: "fail", arguments: {} });
    assert.equal(failed.isError, true);
    assert.match(JSON.stringify(failed.content), /boom/);
    const bad = await calc.callTool({ name: "add", arguments: { a: "x" } });
    assert.equal(bad.isError, true, "arguments the zod schema refuses are an error result, not a crash");
    await calc.close();

    const counterClient = await connect("counter");
    const prompt = await counterClient.callTool({ name: "task_prompt", arguments: {} });
    assert.deepEqual(
      prompt.content,
      [{ type: "text", text: "Count to two." }],
      "the stdio server read GET /task",
    );
    await counterClient.callTool({ name: "remember", arguments: { note: "hello" } });
    assert.deepEqual(trace.state, { note: "hello" }, "the stdio server wrote PUT /state");
    await counterClient.close();

    const auth = { Authorization: `Bearer ${ep.secret}` };
    assert.deepEqual(await (await fetch(`${ep.origin}/state`, { headers: auth })).json(), { note: "hello" });
    const agentPut = await fetch(`${ep.origin}/state`, {
      method: "PUT",
      headers: auth,
      body: '{"note": "x"}',
    });
    assert.equal(agentPut.status, 403, "the agent's credential does not write state");
    assert.deepEqual(trace.state, { note: "hello" });
    assert.deepEqual(trace.info["guard"], ["PUT /state with the agent's credential refused"]);
    const serverAuth = { Authorization: `Bearer ${ep.serverSecret}` };
    const refused = await fetch(`${ep.origin}/state`, {
      method: "PUT",
      headers: serverAuth,
      body: '{"note": 3}',
    });
    assert.equal(refused.status, 400);
    assert.match(((await refused.json()) as { error: string }).error, /^invalid state PUT for mcp-demo: /);
    const t = (await (await fetch(`${ep.origin}/task`, { headers: auth })).json()) as {
      cls: string;
      task: string;
    };
    assert.equal(t.cls, "mcp-demo");
    assert.deepEqual(JSON.parse(t.task), task);
    assert.equal((await fetch(`${ep.origin}/task`)).status, 401);
    assert.equal(
      (await fetch(`${ep.origin}/mcp/nope`, { method: "POST", headers: auth, body: "{}" })).status,
      404,
    );

    const calls = trace.info["tool_calls"] as { server: string; tool: string; is_error: boolean }[];
    assert.deepEqual(
      calls.map((c) => `${c.server}.${c.tool}:${c.is_error}`),
      [
        "calc.add:false",
        "calc.fail:true",
        "calc.add:true",
        "counter.task_prompt:false",
        "counter.remember:false",
      ],
    );
  } finally {
    await wiring.close();
    await server.close();
    await runtime.stop();
  }
});

test("a taskset's stdio server serves the built-in coding agent; its state write fires the task's stop", async () => {
  const script = [
    callTool("counter_bump", { by: 1 }, "c1"),
    callTool("counter_task_prompt", {}, "c2"),
    callTool("counter_remember", { note: "done" }, "c3"),
    say("never reached: the stop fires first"),
  ];
  let i = 0;
  const env = await envFor(demo, "", { "harness.id": "default" });
  try {
    const [r] = await env.runGroup(0, 1, { client: new ScriptedClient(() => script[i++]!) });
    assert.deepEqual(r!.errors, []);
    assert.equal(r!.stop_condition, "noted");
    const tools = r!.nodes
      .filter((n) => n.message.role === "tool")
      .map((n) => contentText(n.message.content as string));
    assert.match(tools[0]!, /^\d+:1$/);
    // The last result never reached the model (the stop refused the next call); the call is on the trace.
    assert.deepEqual(tools.slice(1), ["Count to two."]);
    const calls = r!.info["tool_calls"] as { server: string; tool: string }[];
    assert.deepEqual(
      calls.map((c) => `${c.server}_${c.tool}`),
      ["counter_bump", "counter_task_prompt", "counter_remember"],
    );
  } finally {
    await env.close();
  }
});

test(
  "an external Python program (mcp client) lists and calls the task's tools over MCP",
  { skip: python ? false : "no Python with the mcp package (.venv or $ENVROLL_TEST_PYTHON)" },
  async () => {
    const script = [
      callTool("calc_add", { a: 2, b: 3 }, "c1"),
      callTool("calc_fail", {}, "c2"),
      callTool("counter_bump", { by: 2 }, "c3"),
      say("done"),
    ];
    let i = 0;
    const client = new ScriptedClient(() => script[i++]!);
    const env = await envFor(
      demo,
      // On the host: the venv's interpreter (often under /root/.pyenv) is out of the sandbox's reach.
      `harness.id = "command"\nharness.command = [${JSON.stringify(python)}, ${JSON.stringify(agent)}]\nharness.runtime.type = "subprocess"`,
    );
    try {
      const [r] = await env.runGroup(0, 1, { client });
      assert.deepEqual(r!.errors, []);
      assert.equal(r!.stop_condition, "agent_completed");
      assert.deepEqual(
        client.requests[0]!.tools.map((t) => t.name).sort(),
        [
          "calc_add",
          "calc_fail",
          "counter_bump",
          "counter_remember",
          "counter_task_prompt",
          "counter_task_row",
        ],
        "the program offered every MCP tool as <server>_<tool>",
      );
      const tools = r!.nodes
        .filter((n) => n.message.role === "tool")
        .map((n) => contentText(n.message.content as string));
      assert.equal(tools[0], "5");
      assert.match(tools[1]!, /boom/);
      assert.match(tools[2]!, /^\d+:2$/);
      const calls = r!.info["tool_calls"] as { server: string; is_error: boolean }[];
      assert.deepEqual(
        calls.map((c) => c.is_error),
        [false, true, false],
      );
    } finally {
      await env.close();
    }
  },
);

test("scope: a rollout-scoped server is one process per rollout, a worker-scoped one is shared", async () => {
  const shared = `\n[[toolsets]]\nname = "shared"\nscope = "worker"\ncommand = ${JSON.stringify(counter)}\n`;
  const env = await envFor(demo, `harness.id = "default"${shared}`);
  try {
    const once = async (name: string) => {
      const records = await env.runGroup(0, 2, {
        client: new ScriptedClient((m) =>
          m.some((x) => x.role === "tool") ? say("ok") : callTool(name, {}, "c"),
        ),
      });
      return records.map((r) =>
        contentText(r.nodes.find((n) => n.message.role === "tool")!.message.content as string),
      );
    };
    const own = await once("counter_bump");
    assert.notEqual(
      own[0]!.split(":")[0],
      own[1]!.split(":")[0],
      "two rollouts shared one rollout-scoped server",
    );
    assert.deepEqual(
      own.map((o) => o.split(":")[1]),
      ["1", "1"],
    );
    const sharedOut = await once("shared_bump");
    assert.equal(
      sharedOut[0]!.split(":")[0],
      sharedOut[1]!.split(":")[0],
      "the worker-scoped server was started twice",
    );
    assert.deepEqual(sharedOut.map((o) => o.split(":")[1]).sort(), ["1", "2"]);
  } finally {
    await env.close();
  }
});

test("a user simulator that is an MCP server: opens the task, answers each reply, ends it through /state", async () => {
  const userServer = [
    process.execPath,
    "--import",
    import.meta.resolve("tsx"),
    fileURLToPath(new URL("./servers/user.ts", import.meta.url)),
  ];
  const chatty = defineTaskset({
    id: "chatty",
    load: () => [{ idx: 0, prompt: null }],
    userServer: { name: "user", command: userServer },
    stops: [{ name: "done", fn: ({ trace }) => trace.state["done"] === true }],
  });
  const client = new ScriptedClient(() => say("hello"));
  const env = await envFor(chatty, 'harness.id = "null"');
  try {
    const [r] = await env.runGroup(0, 1, { client });
    assert.deepEqual(r!.errors, []);
    assert.equal(r!.stop_condition, "done");
    assert.equal(r!.num_turns, 2);
    const users = r!.nodes
      .filter((n) => n.message.role === "user")
      .map((n) => contentText(n.message.content as string));
    assert.deepEqual(users, ["Say hello.", 'You said "hello". Again.']);
  } finally {
    await env.close();
  }
});
