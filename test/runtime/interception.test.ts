import assert from "node:assert/strict";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import type { Client } from "../../packages/core/src/clients/client.ts";
import { EvalClient } from "../../packages/core/src/clients/eval.ts";
import { InterceptionServer } from "../../packages/core/src/interception/server.ts";
import { RolloutSession } from "../../packages/core/src/interception/session.ts";
import { noLimits, type RolloutLimits } from "../../packages/core/src/limits.ts";
import { defineTaskset, type TaskHandlers } from "../../packages/core/src/task.ts";
import { Trace } from "../../packages/core/src/trace/trace.ts";
import { envFor } from "./helpers/env.ts";
import { bisectGame } from "./helpers/games.ts";
import { completion, startProvider } from "./helpers/provider.ts";
import { callTool, ScriptedClient, say } from "./helpers/scripted-client.ts";

const server = new InterceptionServer();
after(() => server.close());

async function open(
  client: Client,
  opts: { limits?: RolloutLimits; handlers?: TaskHandlers<any>; task?: any } = {},
) {
  const task = opts.task ?? { idx: 0, prompt: "q" };
  const trace = new Trace(task);
  const handlers = opts.handlers ?? {};
  const session = new RolloutSession({
    task,
    handlers,
    trace,
    client,
    model: "m",
    sampling: { temperature: 0.1 },
    limits: opts.limits ?? noLimits,
    runtime: null,
    tools: handlers.tools && Array.isArray(handlers.tools) ? handlers.tools : [],
    user: handlers.user ? handlers.user({ task, trace, runtime: null }) : null,
    signal: new AbortController().signal,
  });
  const reg = await server.register(session);
  const post = async (path: string, body: unknown, secret = reg.secret) => {
    const res = await fetch(`${reg.baseUrl}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, text, json: () => JSON.parse(text), type: res.headers.get("content-type") };
  };
  return { session, trace, reg, post };
}

const ask = { model: "x", messages: [{ role: "user", content: "q" }] };

test("unknown secret gets 401; the OpenAI chat.completion shape comes back", async () => {
  const { post, trace } = await open(new ScriptedClient(() => callTool("add", { b: 1, a: 2 }, "call_9")));
  assert.equal((await post("/chat/completions", ask, "wrong")).status, 401);
  const malformed = await post("/chat/completions", { messages: [{ role: "wizard", content: "x" }] });
  assert.equal(malformed.status, 400);
  assert.match(malformed.json().error.message, /messages\[0\]/);
  const res = await post("/chat/completions", {
    ...ask,
    tools: [{ type: "function", function: { name: "add", parameters: {} } }],
  });
  assert.equal(res.status, 200);
  const j = res.json();
  assert.equal(j.object, "chat.completion");
  assert.equal(j.choices[0].finish_reason, "tool_calls");
  assert.deepEqual(j.choices[0].message.tool_calls, [
    { id: "call_9", type: "function", function: { name: "add", arguments: '{"b":1,"a":2}' } },
  ]);
  assert.deepEqual(j.usage, { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 });
  assert.equal(trace.numTurns, 1);
});

test("chat streaming in training and eval mode: OpenAI's chunk sequence, committed before [DONE]", async () => {
  for (const kind of ["train", "eval"] as const) {
    const { post, trace } = await open(new ScriptedClient(() => callTool("add", { a: 1 }, "c1"), { kind }));
    const sse = await post("/chat/completions", {
      ...ask,
      stream: true,
      stream_options: { include_usage: true },
    });
    assert.equal(sse.status, 200, sse.text);
    assert.equal(sse.type, "text/event-stream");
    const events = sse.text.trim().split("\n\n");
    assert.equal(events.at(-1), "data: [DONE]");
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e.slice(6)));
    assert.deepEqual(chunks[0].choices[0].delta, { role: "assistant", content: "" });
    assert.deepEqual(chunks[1].choices[0].delta.tool_calls[0], {
      index: 0,
      id: "c1",
      type: "function",
      function: { name: "add", arguments: "" },
    });
    assert.equal(chunks[2].choices[0].delta.tool_calls[0].function.arguments, '{"a":1}');
    assert.equal(chunks[3].choices[0].finish_reason, "tool_calls");
    assert.deepEqual(chunks[4].choices, [], "the usage chunk asked for by stream_options");
    assert.equal(chunks[4].usage.total_tokens, 15);
    assert.equal(trace.numTurns, 1, kind);
  }
});

test("a limit that fires before any completion answers 400 'rollout stopped: <name>'", async () => {
  const { post, trace } = await open(new ScriptedClient(() => say("a")), {
    limits: { ...noLimits, maxTurns: 1 },
  });
  assert.equal((await post("/chat/completions", ask)).status, 200);
  const res = await post("/chat/completions", ask);
  assert.equal(res.status, 400);
  assert.equal(res.json().error.message, "rollout stopped: max_turns");
  assert.equal(trace.stopCondition, "max_turns");
});

test("mid-simulation a stop returns the last completion, not a refusal", async () => {
  const { post, trace } = await open(new ScriptedClient(bisectGame.policy), {
    handlers: bisectGame.taskset,
    task: { idx: 0, prompt: null, secret: 37 },
  });
  const res = await post("/chat/completions", { messages: [] });
  assert.equal(res.status, 200);
  assert.equal(res.json().choices[0].message.content, "37");
  assert.equal(trace.stopCondition, "solved");
});

test("the tools route runs a task tool; failures are tool text", async () => {
  const handlers: TaskHandlers = {
    tools: [
      {
        name: "add",
        description: "",
        parameters: {},
        execute: (a: { a: number; b: number }) => String(a.a + a.b),
      },
      {
        name: "noop",
        description: "",
        parameters: {},
        execute: (() => undefined) as unknown as () => string,
      },
    ],
  };
  const { post } = await open(new ScriptedClient(() => say("x")), { handlers });
  assert.deepEqual((await post("/tools/noop", {})).json(), { content: "" });
  assert.deepEqual((await post("/tools/add", { a: 2, b: 5 })).json(), { content: "7" });
  assert.match((await post("/tools/zzz", {})).json().content, /unknown tool/);
  // A malformed tool name is the program's mistake (400), not a provider failure (502).
  const bad = await post("/tools/%E0%A4%A", {});
  assert.equal(bad.status, 400);
  assert.match(bad.json().error.message, /tool name/);
});

test("provider errors are relayed with their status: own, 504 timeout, 503 connection, else 502", async () => {
  const provider = await startProvider((body) => {
    const q = body.messages[0].content;
    if (q === "busy") return { status: 429, json: { error: { message: "slow down" } } };
    if (q === "slow") return { json: completion({ content: "late" }), delayMs: 2000 };
    if (q === "garbage") return { text: "not json" };
    return { json: completion({ content: "fine" }) };
  });
  try {
    const client = new EvalClient({ baseUrl: provider.baseUrl, model: "m", timeoutMs: 300 });
    const cases: [string, number, string][] = [
      ["busy", 429, "ProviderHttpError"],
      ["slow", 504, "ProviderTimeoutError"],
      ["garbage", 502, "ProviderError"],
    ];
    for (const [q, status, type] of cases) {
      const { post, session } = await open(client);
      const res = await post("/chat/completions", { messages: [{ role: "user", content: q }] });
      assert.equal(res.status, status, q);
      assert.equal((session.error as Error).name, type, q);
    }
    const dead = new EvalClient({ baseUrl: "http://127.0.0.1:9/v1", model: "m" });
    const { post, session } = await open(dead);
    assert.equal((await post("/chat/completions", ask)).status, 503);
    assert.equal((session.error as Error).name, "ProviderConnectionError");
    await client.close();
    await dead.close();
  } finally {
    await provider.close();
  }
});

const agent = fileURLToPath(new URL("./agents/tool_agent.py", import.meta.url));

test("the real provider cause is on the trace after the program exits; overlong prompts truncate cleanly", async () => {
  const provider = await startProvider((body) =>
    body.messages.at(-1).content === "huge"
      ? { status: 400, json: { error: { message: "This model's maximum context length is 8192 tokens" } } }
      : { status: 500, json: { error: { message: "engine exploded" } } },
  );
  try {
    const ts = defineTaskset({
      id: "relay",
      load: () => [
        { idx: 0, prompt: "hi" },
        { idx: 1, prompt: "huge" },
      ],
    });
    const env = await envFor(ts, `harness.command = ["python3", ${JSON.stringify(agent)}]`);
    const client = new EvalClient({ baseUrl: provider.baseUrl, model: "m" });
    const [failed] = await env.runGroup(0, 1, { client });
    assert.equal(failed!.errors.length, 1);
    assert.equal(failed!.errors[0]!.type, "ProviderHttpError", "not the program's HarnessError");
    assert.match(failed!.errors[0]!.message, /500: engine exploded/);
    assert.equal(failed!.errors[0]!.traceback, undefined, "no local traceback for provider errors");
    const [overlong] = await env.runGroup(1, 1, { client });
    assert.deepEqual(overlong!.errors, []);
    assert.equal(overlong!.stop_condition, "context_length");
    assert.equal(overlong!.is_truncated, true);
    await env.close();
    await client.close();
  } finally {
    await provider.close();
  }
});
