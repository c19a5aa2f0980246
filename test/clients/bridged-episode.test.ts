/**
 * A 32-turn tool episode through the TrainClient (real renderer, real transport, the built-in
 * engine over HTTP) recorded into a trace graph, as the interception session does: the bridged
 * prompts share storage turn after turn and attribution covers only what each bridge adds, so
 * these check what that must not change — the ids the engine gets, the full-render equality,
 * and the per-message token spans the graph derives from the tail-only attribution.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { ModelResponse } from "../../packages/core/src/clients/client.ts";
import { TrainClient } from "../../packages/core/src/clients/train.ts";
import { createRenderer } from "../../packages/core/src/renderers/index.ts";
import type { RenderMessage } from "../../packages/core/src/renderers/renderer.ts";
import { branchRecords } from "../../packages/core/src/trace/branches.ts";
import { Trace } from "../../packages/core/src/trace/trace.ts";
import { SglangTransport } from "../../packages/core/src/transport/index.ts";
import type { Message, Tool } from "../../packages/core/src/types.ts";
import { type EngineHandle, startEngine } from "../../packages/engine/src/index.ts";

const TOOLS: Tool[] = [
  {
    name: "lookup",
    description: "Look a word up",
    parameters: { type: "object", properties: { word: { type: "string" } } },
  },
];
const TURNS = 32;
const renderTools = TOOLS.map((t) => ({ type: "function", function: t }));

let engine: EngineHandle;
const bodies: { input_ids: number[] }[] = [];

before(async () => {
  engine = await startEngine({
    policy: (ctx) =>
      `<tool_call>\n{"name": "lookup", "arguments": {"word": "w${ctx.promptIds.length % 97}"}}\n</tool_call>`,
    onRequest: (body) => bodies.push(body as { input_ids: number[] }),
  });
});
after(async () => {
  await engine.close();
});

test("32 bridged turns: every prompt equals the full render and is what the engine got; earlier prompts and node spans stay right", async () => {
  bodies.length = 0;
  const renderer = createRenderer("qwen3");
  const client = new TrainClient({ renderer, transport: new SglangTransport({ baseUrl: engine.url }) });
  const trace = new Trace({ idx: 0 });
  const messages: Message[] = [
    { role: "system", content: "Look words up." },
    { role: "user", content: "Start with 'a'." },
  ];
  const responses: ModelResponse[] = [];
  const promptCopies: number[][] = [];
  for (let t = 0; t < TURNS; t++) {
    const plan = trace.graph.prepareTurn(messages);
    const r = await client.getResponse({ messages, tools: TOOLS, sampling: {}, sessionId: "ep", turn: t });
    trace.recordTurn(plan, r);
    responses.push(r);
    const ids = r.tokens!.promptIds.toArray();
    promptCopies.push(ids);
    const full = renderer.render(messages as RenderMessage[], {
      tools: renderTools,
      addGenerationPrompt: true,
    });
    assert.deepEqual(ids, full.tokenIds, `turn ${t}: bridged prompt = full render`);
    assert.deepEqual(bodies[t]!.input_ids, ids, `turn ${t}: the engine got exactly these ids`);
    const call = r.message.tool_calls![0]!;
    messages.push(r.message, { role: "tool", tool_call_id: call.id, content: `meaning ${t}` });
  }
  assert.deepEqual(client.counts, { bridged: TURNS - 1, rendered: 1, bridgeDeclined: 0, inputsChanged: 0 });
  // Later turns wrote into the storage the earlier prompts share: none of them changed.
  responses.forEach((r, t) => {
    assert.deepEqual(r.tokens!.promptIds.toArray(), promptCopies[t], `turn ${t}`);
  });

  // One branch (no fork), equal to the last prompt + completion.
  const branches = branchRecords(trace.graph);
  assert.equal(branches.length, 1);
  const last = responses.at(-1)!.tokens!;
  assert.deepEqual(branches[0]!.token_ids, [...last.promptIds, ...last.completionIds]);

  // Each prompt message's node holds its span of the full render (plus the scaffold before it,
  // e.g. the `\n` after the previous <|im_end|>), as full-length attribution would give it; a
  // reply node holds the generation prompt and the completion.
  const fullRender = renderer.render(messages.slice(0, -1) as RenderMessage[], { tools: renderTools });
  const path = trace.graph.path(trace.graph.lastSampled);
  assert.equal(path.length, messages.length - 1);
  let at = 0;
  path.forEach((n, i) => {
    const node = trace.graph.nodes[n]!;
    if (!node.sampled) {
      const end = fullRender.messageIndices.lastIndexOf(i) + 1;
      assert.deepEqual(node.tokenIds, fullRender.tokenIds.slice(at, end), `message ${i} span`);
      assert.deepEqual(node.isContent, fullRender.isContent.slice(at, end), `message ${i} content flags`);
    }
    at += node.tokenIds!.length;
  });
});
