/**
 * The wire contract of each dialect without an SDK in between: its secret header, its error
 * body shape, the refusals that name the unsupported field, count_tokens, and streams that stay
 * open with keepalive comments while a slow turn runs (errors then arrive as an event).
 */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import type { Client } from "../../packages/core/src/clients/client.ts";
import { InterceptionServer } from "../../packages/core/src/interception/server.ts";
import { callTool, ScriptedClient, say } from "../runtime/helpers/scripted-client.ts";
import { bareSession } from "../runtime/helpers/session.ts";

const server = new InterceptionServer({ keepaliveMs: 50 });
after(() => server.close());

async function open(client: Client) {
  const { session, trace } = bareSession(client);
  const reg = await server.register(session);
  const origin = reg.baseUrl.replace(/\/v1$/, "");
  const post = async (path: string, body: unknown, headers: Record<string, string>) => {
    const res = await fetch(`${origin}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, text, json: () => JSON.parse(text) };
  };
  return { reg, trace, post };
}

const msgs = { model: "claude", max_tokens: 50, messages: [{ role: "user", content: "q" }] };

test("anthropic: x-api-key (or bearer) authenticates; errors are {type: error, error: {type, message}}", async () => {
  const { reg, post, trace } = await open(new ScriptedClient(() => callTool("add", { a: 1 }, "t1")));
  const denied = await post("/v1/messages", msgs, { "x-api-key": "nope" });
  assert.equal(denied.status, 401);
  assert.deepEqual(denied.json(), {
    type: "error",
    error: { type: "authentication_error", message: "invalid or unknown rollout secret" },
  });
  const ok = await post("/v1/messages", msgs, { "x-api-key": reg.secret });
  assert.equal(ok.status, 200, ok.text);
  assert.equal(ok.json().stop_reason, "tool_use");
  assert.deepEqual(ok.json().content, [{ type: "tool_use", id: "t1", name: "add", input: { a: 1 } }]);
  const bearer = await post("/v1/messages", msgs, { authorization: `Bearer ${reg.secret}` });
  assert.equal(bearer.status, 200);
  const bad = await post(
    "/v1/messages",
    { ...msgs, tools: [{ type: "frobnicate_20990101", name: "f" }] },
    { "x-api-key": reg.secret },
  );
  assert.equal(bad.status, 400);
  assert.equal(bad.json().error.type, "invalid_request_error");
  assert.match(bad.json().error.message, /^tools\[0\]: only custom tools/);
  const unknown = await post("/v1/messages", { ...msgs, temprature: 1 }, { "x-api-key": reg.secret });
  assert.equal(unknown.status, 400);
  assert.match(unknown.json().error.message, /^temprature: unknown request field/);
  // A server tool (Anthropic runs it; it is not here) is left out of the prompt and listed.
  const hosted = await post(
    "/v1/messages",
    { ...msgs, tools: [{ type: "web_search_20250305", name: "web_search" }] },
    { "x-api-key": reg.secret },
  );
  assert.equal(hosted.status, 200, hosted.text);
  assert.deepEqual(trace.info["dropped_tools"], ["web_search_20250305"]);
  const count = await post("/v1/messages/count_tokens", msgs, { "x-api-key": reg.secret });
  assert.equal(count.status, 200);
  assert.ok(count.json().input_tokens > 0);
  assert.equal(trace.numTurns, 3, "count_tokens is never a turn");
});

test("responses: refusals name the field; OpenAI error bodies; a bearer-less call is 401", async () => {
  const { reg, post, trace } = await open(new ScriptedClient(() => say("hi")));
  const auth = { authorization: `Bearer ${reg.secret}` };
  assert.equal((await post("/v1/responses", { input: "q" }, { "x-api-key": reg.secret })).status, 401);
  const cases: [unknown, RegExp][] = [
    [{ input: "q", previous_response_id: "resp_1" }, /^previous_response_id: not supported/],
    [{ input: [{ type: "item_reference", id: "x" }] }, /^input\[0\]\.type: item_reference/],
    [
      { input: "q", tools: [{ type: "frobnicate" }] },
      /^tools\[0\]\.type: unsupported tool type "frobnicate"/,
    ],
    [{ input: "q", max_tokens: 5 }, /^max_tokens: unknown request field/],
    [
      { input: [{ type: "function_call", name: "f", arguments: "{}" }] },
      /^input\[0\]\.call_id: expected a string/,
    ],
  ];
  for (const [body, message] of cases) {
    const r = await post("/v1/responses", body, auth);
    assert.equal(r.status, 400, r.text);
    assert.equal(r.json().error.type, "invalid_request_error");
    assert.match(r.json().error.message, message);
  }
  assert.equal(trace.numTurns, 0);
  const ok = (await post("/v1/responses", { input: "q", instructions: "be brief" }, auth)).json();
  assert.equal(ok.status, "completed");
  assert.equal(ok.instructions, "be brief");
  assert.deepEqual(ok.output[0].content[0].text, "hi");
});

test("a slow streaming turn keeps the stream alive, then ends with the full sequence (or an error event)", async () => {
  for (const [path, headers, terminal] of [
    ["/v1/chat/completions", "bearer", "data: [DONE]"],
    ["/v1/responses", "bearer", "event: response.completed"],
    ["/v1/messages", "x-api-key", "event: message_stop"],
  ] as const) {
    const { reg, post, trace } = await open(new ScriptedClient(() => say("late"), { latencyMs: 150 }));
    const h: Record<string, string> =
      headers === "bearer" ? { authorization: `Bearer ${reg.secret}` } : { "x-api-key": reg.secret };
    const body =
      path === "/v1/responses" ? { model: "m", input: "q", stream: true } : { ...msgs, stream: true };
    const r = await post(path, body, h);
    assert.equal(r.status, 200);
    assert.ok(r.text.startsWith(": keepalive\n\n"), `${path}: ${r.text.slice(0, 40)}`);
    const events = r.text.trim().split("\n\n");
    assert.ok(events.at(-1)!.startsWith(terminal), `${path}: ${events.at(-1)}`);
    assert.equal(trace.numTurns, 1);
  }
  const failing = new ScriptedClient(
    () => {
      throw new Error("engine fell over");
    },
    { latencyMs: 150 },
  );
  const { reg, post } = await open(failing);
  const r = await post("/v1/messages", { ...msgs, stream: true }, { "x-api-key": reg.secret });
  assert.equal(r.status, 200, "the headers were already out");
  const last = r.text.trim().split("\n\n").at(-1)!;
  assert.match(last, /^event: error\ndata: /);
  assert.equal(JSON.parse(last.split("data: ")[1]!).error.type, "api_error");
});
