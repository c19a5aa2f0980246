/**
 * Trace identity under real programs, over the interception HTTP server: what a program echoes
 * back of a reply it received (content "" as null, a malformed tool call verbatim) is the same
 * node, and a request its SDK re-sends after a client-side timeout gets the recorded completion
 * instead of a second sample.
 */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import type { Client } from "../../packages/core/src/clients/client.ts";
import { InterceptionServer } from "../../packages/core/src/interception/server.ts";
import type { Trace } from "../../packages/core/src/trace/trace.ts";
import type { AssistantMessage } from "../../packages/core/src/types.ts";
import { until } from "../engine/wait.ts";
import { ScriptedClient, say } from "./helpers/scripted-client.ts";
import { bareSession } from "./helpers/session.ts";

const server = new InterceptionServer();
after(() => server.close());

async function open(client: Client) {
  const { session, trace } = bareSession(client);
  const reg = await server.register(session);
  const post = async (body: unknown, signal?: AbortSignal) => {
    const res = await fetch(`${reg.baseUrl}/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${reg.secret}`, "content-type": "application/json" },
      body: JSON.stringify(body),
      signal,
    });
    return { status: res.status, json: (await res.json()) as any };
  };
  return { trace, post };
}

const q = [{ role: "user", content: "q" }];

/** Sends turn 1, echoes its message through `echo`, sends turn 2; returns the trace. */
async function echoed(reply: AssistantMessage, echo: (wire: any) => any) {
  const client = new ScriptedClient((m) => (m.length === 1 ? reply : say("done")));
  const { trace, post } = await open(client);
  const first = await post({ messages: q });
  assert.equal(first.status, 200);
  const wire = first.json.choices[0].message;
  const calls = wire.tool_calls ?? [];
  const results = calls.map((c: any) => ({ role: "tool", tool_call_id: c.id, content: "r" }));
  const second = await post({ messages: [...q, echo(wire), ...results] });
  assert.equal(second.status, 200);
  return trace;
}

/** Lets the request reach the model, then abandons it client-side as an SDK timeout does. */
async function giveUp(client: ScriptedClient, request: Promise<unknown>, timeout: AbortController) {
  await until(() => client.requests.length === 1, 5_000, "the request reached the model");
  timeout.abort();
  await assert.rejects(request);
}

const sampledNodes = (trace: Trace) => trace.graph.nodes.filter((n) => n.sampled).length;

test('content "" echoed back as null is the same node (one branch)', async () => {
  const reply: AssistantMessage = {
    role: "assistant",
    content: "",
    tool_calls: [{ id: "call_0", name: "add", arguments: '{"a": 1}' }],
  };
  const trace = await echoed(reply, (w) => ({ ...w, content: null }));
  assert.equal(trace.graph.leaves().length, 1, "no fork");
  assert.equal(sampledNodes(trace), 2);
});

test("a malformed tool call echoed exactly as received is the same node", async () => {
  // What a parser yields for a call with no name and broken JSON: kept so the harness can answer it.
  const reply: AssistantMessage = {
    role: "assistant",
    content: "",
    tool_calls: [
      { id: "call_0", name: "", arguments: '<tool_call>\n{"arguments": {"a": 1\n</tool_call>' },
      { id: "call_1", name: "add", arguments: '{"a": 1,,}' },
    ],
  };
  const trace = await echoed(reply, (w) => w);
  assert.equal(trace.graph.leaves().length, 1, "no fork");
  assert.equal(sampledNodes(trace), 2);
});

test("an SDK re-send after a client-side timeout gets the recorded completion, not a new sample", async () => {
  const client = new ScriptedClient(() => say("slow answer"), { latencyMs: 300 });
  const { trace, post } = await open(client);
  const timeout = new AbortController();
  // The SDK gives up while the turn is still generating …
  await giveUp(client, post({ messages: q, temperature: 1 }, timeout.signal), timeout);
  // … and re-sends the identical request.
  const again = await post({ messages: q, temperature: 1 });
  assert.equal(again.status, 200);
  assert.equal(again.json.choices[0].message.content, "slow answer");
  assert.equal(client.requests.length, 1, "sampled once");
  assert.equal(trace.numTurns, 1);
  assert.equal(sampledNodes(trace), 1);
});

test("a re-send after the timed-out request finished is answered from the record too", async () => {
  const client = new ScriptedClient(() => say("late"), { latencyMs: 150 });
  const { trace, post } = await open(client);
  const timeout = new AbortController();
  await giveUp(client, post({ messages: q }, timeout.signal), timeout);
  await new Promise((r) => setTimeout(r, 300)); // the orphaned turn has finished by now
  const again = await post({ messages: q });
  assert.equal(again.json.choices[0].message.content, "late");
  assert.equal(client.requests.length, 1);
  assert.equal(trace.numTurns, 1);
});

test("the same request sent again after its answer was delivered samples again", async () => {
  // Agents re-ask on a reply they could not use; deduplicating that would loop on one sample.
  const client = new ScriptedClient(() => say("x"));
  const { trace, post } = await open(client);
  await post({ messages: q });
  await post({ messages: q });
  assert.equal(client.requests.length, 2);
  assert.equal(trace.numTurns, 2);
});
