/**
 * Token streaming end to end: a streaming program (chat completions, Responses, Anthropic
 * Messages) gets its first text delta while the engine is still sampling — before the turn is
 * committed to the trace — and its terminal event only after the commit. What it assembles from
 * the stream is the answer the same request gets unstreamed, and the trace holds the same ids
 * and logprobs. Real parts: the stand-in engine's streaming `/generate` (one token per 4 ms),
 * the real transport, the Qwen3 tokenizer, renderer and parser.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { TrainClient } from "../../packages/core/src/clients/train.ts";
import { InterceptionServer } from "../../packages/core/src/interception/server.ts";
import type { Trace } from "../../packages/core/src/trace/trace.ts";
import { type EngineHandle, startEngine } from "../../packages/engine/src/index.ts";
import { qwen3TrainClient } from "../clients/qwen3-client.ts";
import { bareSession } from "../runtime/helpers/session.ts";

const REPLIES: Record<string, string> = {
  plain: `Here is a long answer, ${"one word after another, ".repeat(12)}and done.`,
  think: `<think>\nFirst I plan the answer.\n</think>\n\nThe answer: ${"more text follows here. ".repeat(8)}`,
  tool: `I will look that up now, ${"carefully, ".repeat(8)}then call.\n<tool_call>\n{"name": "lookup", "arguments": {"q": "x", "n": 2}}\n</tool_call>`,
};

let engine: EngineHandle;
let client: TrainClient;
const server = new InterceptionServer({ keepaliveMs: 0 });

before(async () => {
  engine = await startEngine({
    tokenLatencyMs: 4,
    policy: (ctx) => REPLIES[Object.keys(REPLIES).find((k) => ctx.promptText.includes(`shape=${k}`))!]!,
  });
  client = qwen3TrainClient(engine.url, { contextLength: 8192 });
});
after(async () => {
  await server.close();
  await client.close();
  await engine.close();
});

type Wire = {
  path: string;
  headers: (secret: string) => Record<string, string>;
  body: (shape: string) => object;
};
const tools = [{ name: "lookup", description: "look up", schema: { type: "object", properties: {} } }];
const WIRES: Record<string, Wire> = {
  chat: {
    path: "/v1/chat/completions",
    headers: (s) => ({ authorization: `Bearer ${s}` }),
    body: (shape) => ({
      model: "m",
      messages: [{ role: "user", content: `shape=${shape}` }],
      tools: tools.map((t) => ({
        type: "function",
        function: { name: t.name, description: t.description, parameters: t.schema },
      })),
    }),
  },
  responses: {
    path: "/v1/responses",
    headers: (s) => ({ authorization: `Bearer ${s}` }),
    body: (shape) => ({
      model: "m",
      input: `shape=${shape}`,
      tools: tools.map((t) => ({
        type: "function",
        name: t.name,
        description: t.description,
        parameters: t.schema,
      })),
    }),
  },
  anthropic: {
    path: "/v1/messages",
    headers: (s) => ({ "x-api-key": s }),
    body: (shape) => ({
      model: "m",
      max_tokens: 400,
      messages: [{ role: "user", content: `shape=${shape}` }],
      tools: tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.schema })),
    }),
  },
};

async function call(dialect: string, shape: string, stream: boolean) {
  // The config's seed: every dialect samples the same logprobs (Anthropic and Responses have no seed field).
  const { session, trace } = bareSession(client, { sampling: { seed: 3 } });
  const reg = await server.register(session);
  const wire = WIRES[dialect]!;
  const res = await fetch(`${reg.baseUrl.replace(/\/v1$/, "")}${wire.path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...wire.headers(reg.secret) },
    body: JSON.stringify({ ...wire.body(shape), stream }),
  });
  assert.equal(res.status, 200);
  if (!stream)
    return {
      json: (await res.json()) as any,
      trace,
      events: [],
      turnsAtFirstText: -1,
      turnsAtFirstReasoning: -1,
    };
  // Read as it arrives: note whether the turn was committed when the first text came.
  const events: { event?: string; data: any }[] = [];
  let turnsAtFirstText = -1;
  let turnsAtFirstReasoning = -1;
  let pending = "";
  const utf8 = new TextDecoder();
  for await (const bytes of res.body as AsyncIterable<Uint8Array>) {
    pending += utf8.decode(bytes, { stream: true });
    let end = pending.indexOf("\n\n");
    while (end >= 0) {
      const raw = pending.slice(0, end);
      pending = pending.slice(end + 2);
      end = pending.indexOf("\n\n");
      const e: { event?: string; data: any } = { data: null };
      for (const line of raw.split("\n")) {
        if (line.startsWith("event: ")) e.event = line.slice(7);
        if (line.startsWith("data: "))
          e.data = line.slice(6) === "[DONE]" ? "[DONE]" : JSON.parse(line.slice(6));
      }
      if (turnsAtFirstText < 0 && textOf(e) !== "") turnsAtFirstText = trace.numTurns;
      if (turnsAtFirstReasoning < 0 && reasoningOf(e) !== "") turnsAtFirstReasoning = trace.numTurns;
      if (isTerminal(e)) assert.equal(trace.numTurns, 1, "the terminal event comes after the commit");
      events.push(e);
    }
  }
  return { json: null, trace, events, turnsAtFirstText, turnsAtFirstReasoning };
}

/**
 * What one streamed event adds, in whichever dialect sent it: chat's `delta[chat]`, a Responses
 * event of type `responses`, or an Anthropic delta of type `anthropic` (its text in `field`).
 */
function deltaOf(
  e: { data: any },
  chat: string,
  responses: string,
  anthropic: string,
  field: string,
): string {
  const d = e.data;
  return (
    d?.choices?.[0]?.delta?.[chat] ??
    (d?.type === responses ? d.delta : undefined) ??
    (d?.delta?.type === anthropic ? d.delta[field] : undefined) ??
    ""
  );
}

const textOf = (e: { data: any }) =>
  deltaOf(e, "content", "response.output_text.delta", "text_delta", "text");
const reasoningOf = (e: { data: any }) =>
  deltaOf(e, "reasoning_content", "response.reasoning_summary_text.delta", "thinking_delta", "thinking");

function isTerminal(e: { event?: string; data: any }): boolean {
  return e.data === "[DONE]" || e.event === "message_stop" || e.event === "response.completed";
}

/** The answer as the program's SDK assembles it, in the dialect's non-streaming shape. */
function assemble(dialect: string, events: { event?: string; data: any }[]): any {
  if (dialect === "chat") {
    const m: any = { role: "assistant", content: "" };
    const calls: any[] = [];
    for (const { data } of events) {
      const d = data?.choices?.[0]?.delta;
      if (!d) continue;
      if (d.content) m.content += d.content;
      if (d.reasoning_content) m.reasoning_content = (m.reasoning_content ?? "") + d.reasoning_content;
      for (const c of d.tool_calls ?? []) {
        calls[c.index] ??= { id: c.id, type: "function", function: { name: c.function.name, arguments: "" } };
        calls[c.index].function.arguments += c.function.arguments ?? "";
      }
    }
    if (calls.length > 0) m.tool_calls = calls;
    if (m.content === "") m.content = null;
    return m;
  }
  if (dialect === "anthropic") {
    const blocks: any[] = [];
    for (const { data } of events) {
      if (data?.type === "content_block_start") blocks[data.index] = { ...data.content_block };
      if (data?.type !== "content_block_delta") continue;
      const b = blocks[data.index];
      const d = data.delta;
      if (d.type === "text_delta") b.text += d.text;
      if (d.type === "thinking_delta") b.thinking += d.thinking;
      if (d.type === "signature_delta") b.signature += d.signature;
      if (d.type === "input_json_delta") b.input = JSON.parse(d.partial_json);
    }
    return blocks;
  }
  // Responses: the deltas must spell the message the completed response carries.
  const done = events.find((e) => e.event === "response.completed")!.data.response;
  const text = events
    .filter((e) => e.data?.type === "response.output_text.delta")
    .map((e) => e.data.delta)
    .join("");
  const message = done.output.find((o: any) => o.type === "message");
  assert.equal(text, message?.content[0].text ?? "");
  return done.output;
}

function unstreamed(dialect: string, json: any): any {
  if (dialect === "chat") return json.choices[0].message;
  if (dialect === "anthropic") return json.content;
  return json.output;
}

function sampled(trace: Trace) {
  const node = trace.toRecord().nodes.find((n) => n.sampled)!;
  return { ids: node.token_ids, logprobs: node.logprobs?.map(String) };
}

for (const dialect of Object.keys(WIRES)) {
  for (const shape of Object.keys(REPLIES)) {
    test(`${dialect} ${shape}: first text before the commit; the stream assembles to the unstreamed answer`, async () => {
      const plain = await call(dialect, shape, false);
      const live = await call(dialect, shape, true);
      assert.equal(live.turnsAtFirstText, 0, "text arrived while the turn was being sampled");
      if (shape === "think") assert.equal(live.turnsAtFirstReasoning, 0, "so did the reasoning");
      // Ids carry each rollout's own rid.
      const rids = (v: unknown) => JSON.stringify(v).replace(/[0-9a-f]{32}:\d+:[0-9a-f]{8}/g, "RID");
      assert.equal(rids(assemble(dialect, live.events)), rids(unstreamed(dialect, plain.json)));
      assert.deepEqual(sampled(live.trace), sampled(plain.trace), "same ids and logprobs, bit for bit");
      assert.equal(live.trace.info["stream_diverged"], undefined);
    });
  }
}
