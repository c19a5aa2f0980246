/**
 * A tool call whose sampled arguments are not a JSON object (a list, a bare string, malformed
 * text) reaches an Anthropic program as `input: {"arguments": <the text>}`, since `input` must be
 * an object. When the program sends that call back in its history, the trace must see the turn
 * it sampled — one node, one branch — not a re-spelled call that forks the trace.
 */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { InterceptionServer } from "../../packages/core/src/interception/server.ts";
import { callTool, ScriptedClient, say } from "../runtime/helpers/scripted-client.ts";
import { bareSession } from "../runtime/helpers/session.ts";

const server = new InterceptionServer({ keepaliveMs: 0 });
after(() => server.close());

for (const [label, sampled] of [
  ["a JSON list", "[1, 2]"],
  ["malformed JSON", '{"a": 1'],
  ["a JSON string", '"ls -la"'],
] as const) {
  test(`anthropic: a call sampled with ${label} as arguments is one node when echoed back`, async () => {
    let turn = 0;
    const client = new ScriptedClient(
      () => (turn++ === 0 ? callTool("run", sampled, "toolu_1") : say("done")),
      { tokens: true },
    );
    const { session, trace } = bareSession(client);
    const reg = await server.register(session);
    const url = `${reg.baseUrl.replace(/\/v1$/, "")}/v1/messages`;
    const headers = { "content-type": "application/json", "x-api-key": reg.secret };
    const tools = [{ name: "run", input_schema: { type: "object" } }];
    const first = { model: "m", max_tokens: 50, tools, messages: [{ role: "user", content: "go" }] };
    const r1 = await fetch(url, { method: "POST", headers, body: JSON.stringify(first) });
    const a1 = (await r1.json()) as { content: { type: string; input: unknown }[] };
    assert.equal(r1.status, 200);
    const use = a1.content.find((b) => b.type === "tool_use")!;
    assert.deepEqual(use.input, { arguments: sampled }, "the program sees the text as it was sampled");
    const second = {
      ...first,
      messages: [
        ...first.messages,
        { role: "assistant", content: a1.content },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "ok" }] },
      ],
    };
    const r2 = await fetch(url, { method: "POST", headers, body: JSON.stringify(second) });
    assert.equal(r2.status, 200, await r2.clone().text());
    assert.equal(trace.numTurns, 2);
    // The echoed call restores to the sampled arguments: the second prompt carries them verbatim.
    const echoed = client.requests[1]!.messages[1]!;
    assert.equal(echoed.role === "assistant" && echoed.tool_calls?.[0]?.arguments, sampled);
    assert.equal(trace.graph.leaves().length, 1, "one branch: the echoed call is the sampled node");
  });
}

test("anthropic: a program's own call with a single string `arguments` key keeps its meaning", async () => {
  // Never sampled by this session, so nothing is restored: the call is what the program wrote.
  const client = new ScriptedClient(() => say("ok"));
  const { session } = bareSession(client);
  const reg = await server.register(session);
  const url = `${reg.baseUrl.replace(/\/v1$/, "")}/v1/messages`;
  const body = {
    model: "m",
    max_tokens: 50,
    messages: [
      { role: "user", content: "go" },
      {
        role: "assistant",
        content: [{ type: "tool_use", id: "toolu_9", name: "run", input: { arguments: "[1, 2]" } }],
      },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_9", content: "ok" }] },
    ],
  };
  const r = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": reg.secret },
    body: JSON.stringify(body),
  });
  assert.equal(r.status, 200);
  const call = client.requests[0]!.messages[1]!;
  assert.equal(call.role === "assistant" && call.tool_calls?.[0]?.arguments, '{"arguments": "[1, 2]"}');
});
