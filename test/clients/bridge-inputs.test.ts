/**
 * A bridge may only extend the previous turn when every render input is unchanged: the tools,
 * enable_thinking / chat-template kwargs and the system prompt. Driven through the interception
 * session (what harnesses call) with the real TrainClient, Qwen3 renderer, transport and engine;
 * the expected prompt is always the renderer's own full render of the same request.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Sampling } from "../../packages/core/src/clients/client.ts";
import { TrainClient } from "../../packages/core/src/clients/train.ts";
import { createRenderer } from "../../packages/core/src/renderers/index.ts";
import type { RenderTool } from "../../packages/core/src/renderers/renderer.ts";
import { SglangTransport } from "../../packages/core/src/transport/index.ts";
import type { Message, Tool } from "../../packages/core/src/types.ts";
import { type EngineHandle, startEngine } from "../../packages/engine/src/index.ts";
import { bareSession } from "../runtime/helpers/session.ts";

const ADD: Tool = {
  name: "add",
  description: "Add two numbers",
  parameters: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } } },
};
const MUL: Tool = { ...ADD, name: "mul", description: "Multiply two numbers" };
const renderTools = (tools: Tool[]): RenderTool[] =>
  tools.map((t) => ({
    type: "function",
    function: { name: t.name, description: t.description, parameters: t.parameters },
  }));

let engine: EngineHandle;
let prompts: number[][] = [];

before(async () => {
  engine = await startEngine({
    policy: (ctx) =>
      ctx.promptText.includes("<tool_response>")
        ? "Done."
        : '<tool_call>\n{"name": "add", "arguments": {"a": 3, "b": 2}}\n</tool_call>',
    onRequest: (body) => prompts.push((body as { input_ids: number[] }).input_ids),
  });
});
after(() => engine.close());

function open() {
  const renderer = createRenderer("qwen3");
  const client = new TrainClient({ renderer, transport: new SglangTransport({ baseUrl: engine.url }) });
  const { session, trace } = bareSession(client);
  return { renderer, client, session, trace };
}

/** Turn 1 with `first`, then the tool result with `second`; returns turn 2's prompt and history. */
async function twoTurns(
  first: { tools: Tool[]; sampling?: Sampling },
  second: { tools: Tool[]; sampling?: Sampling },
) {
  prompts = [];
  const o = open();
  const history: Message[] = [
    { role: "system", content: "You add numbers." },
    { role: "user", content: "What is 3 + 2?" },
  ];
  const r1 = await o.session.complete(history, first.tools, first.sampling);
  assert.equal(r1.kind, "completion");
  const reply = r1.kind === "completion" ? r1.response.message : null;
  const call = reply?.tool_calls?.[0];
  assert.ok(reply && call, "turn 1 called a tool");
  const next: Message[] = [...history, reply, { role: "tool", tool_call_id: call.id, content: "5" }];
  await o.session.complete(next, second.tools, second.sampling);
  assert.equal(prompts.length, 2);
  return { ...o, next, sent: prompts[1]! };
}

test("unchanged tools and options: turn 2 is bridged from the sampled ids", async () => {
  const { client, sent } = await twoTurns({ tools: [ADD] }, { tools: [ADD] });
  assert.equal(client.counts.bridged, 1);
  assert.deepEqual(sent.slice(0, prompts[0]!.length), prompts[0], "turn 1 prompt carried verbatim");
});

test("a tool added on turn 2 is in turn 2's prompt: the client renders in full", async () => {
  const { client, renderer, next, sent } = await twoTurns({ tools: [ADD] }, { tools: [ADD, MUL] });
  const full = renderer.render(next, { tools: renderTools([ADD, MUL]), addGenerationPrompt: true });
  assert.match(renderer.decode(sent), /"name": "mul"/, "the new tool reached the model");
  assert.deepEqual(sent, full.tokenIds);
  assert.equal(client.counts.bridged, 0);
});

test("enable_thinking switched off on turn 2 (chat_template_kwargs) renders in full", async () => {
  const off = { chat_template_kwargs: { enable_thinking: false } };
  const { client, renderer, next, sent } = await twoTurns({ tools: [ADD] }, { tools: [ADD], sampling: off });
  const full = renderer.render(next, {
    tools: renderTools([ADD]),
    addGenerationPrompt: true,
    enableThinking: false,
  });
  assert.deepEqual(sent, full.tokenIds);
  assert.equal(client.counts.bridged, 0);
});
