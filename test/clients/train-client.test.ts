/**
 * TrainClient over real HTTP: the built-in engine (protocol-faithful SGLang stand-in, real
 * Qwen3 tokenizer), the real Qwen3 renderer and the real transport.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type TrainClient, TurnAbortedError } from "../../packages/core/src/clients/train.ts";
import { createRenderer } from "../../packages/core/src/renderers/index.ts";
import type { Message, Tool } from "../../packages/core/src/types.ts";
import { type EngineHandle, startEngine } from "../../packages/engine/src/index.ts";
import { untilStarted } from "../engine/wait.ts";
import { qwen3TrainClient } from "./qwen3-client.ts";

const TOOLS: Tool[] = [
  {
    name: "add",
    description: "Add two numbers",
    parameters: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } } },
  },
];

let engine: EngineHandle;
let seen: unknown[] = [];

before(async () => {
  engine = await startEngine({
    // Turn 1 calls a tool (with a float the model wrote as 2.0), turn 2 answers.
    policy: (ctx) =>
      ctx.lastMessage?.role === "user" && ctx.promptText.includes("<tool_response>")
        ? "The sum is 5."
        : '<tool_call>\n{"name": "add", "arguments": {"a": 3, "b": 2.0}}\n</tool_call>',
    onRequest: (body) => seen.push(body),
  });
});
after(async () => {
  await engine.close();
});

function client(bridge = true): TrainClient {
  return qwen3TrainClient(engine.url, {}, { bridge });
}

test("multi-turn tool episode: turn 2 prompt extends turn 1 prompt+completion exactly (bridged)", async () => {
  seen = [];
  const c = client();
  const messages: Message[] = [
    { role: "system", content: "You add numbers." },
    { role: "user", content: "What is 3 + 2?" },
  ];
  const r1 = await c.getResponse({
    messages,
    tools: TOOLS,
    sampling: { temperature: 1 },
    sessionId: "s1",
    turn: 0,
  });
  assert.equal(r1.finishReason, "tool_calls");
  assert.ok(r1.tokens);
  const call = r1.message.tool_calls?.[0];
  assert.equal(call?.name, "add");
  // The model's own argument text (2.0 stays 2.0), not a JS re-serialization.
  assert.equal(call?.arguments, '{"a": 3, "b": 2.0}');
  assert.equal(r1.tokens.completionIds.length, r1.tokens.completionLogprobs.length);
  assert.equal(r1.tokens.completionIds.at(-1), 151645, "completion ends with <|im_end|>");

  const toolMsg: Message = { role: "tool", tool_call_id: call.id, content: "5" };
  const history: Message[] = [...messages, r1.message, toolMsg];
  const r2 = await c.getResponse({
    messages: history,
    tools: TOOLS,
    sampling: { temperature: 1 },
    sessionId: "s1",
    turn: 1,
  });
  assert.ok(r2.tokens?.bridged);
  const prefix = [...r1.tokens.promptIds, ...r1.tokens.completionIds];
  assert.deepEqual(r2.tokens.promptIds.slice(0, prefix.length), prefix);
  // The engine received exactly the bridged ids.
  assert.deepEqual((seen[1] as { input_ids: number[] }).input_ids, r2.tokens.promptIds.toArray());
  // Attribution covers only what the bridge added (the sampled prefix is -1 by definition); the
  // new tool message is index 3 of the history.
  assert.equal(r2.tokens.attributionStart, prefix.length);
  assert.equal(r2.tokens.promptMessageIndices!.length, r2.tokens.promptIds.length - prefix.length);
  assert.ok(r2.tokens.promptMessageIndices!.includes(3));
  assert.equal(r2.message.content, "The sum is 5.");
  assert.equal(r2.finishReason, "stop");
  assert.deepEqual(c.counts, { bridged: 1, rendered: 1, bridgeDeclined: 0, inputsChanged: 0 });
});

test("tool-call ids are unique within a rollout (a program keys its tool results by them)", async () => {
  const c = client();
  const messages: Message[] = [{ role: "user", content: "What is 3 + 2?" }];
  const ids: string[] = [];
  for (let turn = 0; turn < 3; turn++) {
    // The policy calls `add` whenever the last message is not a tool result: feed it user turns.
    const r = await c.getResponse({ messages, tools: TOOLS, sampling: {}, sessionId: "ids", turn });
    const call = r.message.tool_calls?.[0];
    assert.ok(call, `turn ${turn} called a tool`);
    ids.push(call.id);
    messages.push(r.message, { role: "user", content: "again" });
  }
  assert.equal(new Set(ids).size, 3, `ids ${ids.join(", ")}`);
});

test("without bridging the same history is fully rendered and equals the template rendering", async () => {
  const c = client(false);
  const renderer = createRenderer("qwen3");
  const messages: Message[] = [{ role: "user", content: "hi" }];
  const r = await c.getResponse({ messages, tools: [], sampling: {}, sessionId: "s2", turn: 0 });
  const expected = renderer.render(messages, { addGenerationPrompt: true }).tokenIds;
  assert.deepEqual(r.tokens!.promptIds.toArray(), expected);
  assert.equal(r.tokens!.bridged, false);
});

test("an engine abort becomes a typed error, never an empty reply", async () => {
  const slow = await startEngine({ policy: () => "x ".repeat(200), tokenLatencyMs: 5 });
  try {
    const c = qwen3TrainClient(slow.url);
    const pending = c.getResponse({
      messages: [{ role: "user", content: "go" }],
      tools: [],
      sampling: {},
      sessionId: "abort-me",
      turn: 0,
    });
    // Aborts act on live rids only (as SGLang): wait until the engine has the request.
    await untilStarted(slow, 1);
    await c.abort("abort-me");
    await assert.rejects(
      pending,
      (err: Error) => err instanceof TurnAbortedError && err.name === "TurnAbortedError",
    );
  } finally {
    await slow.close();
  }
});

test("an image part is refused as UnsupportedError before anything is sent (renderers are text-only)", async () => {
  seen = [];
  const messages: Message[] = [
    {
      role: "user",
      content: [
        { type: "text", text: "What is this?" },
        { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } },
      ],
    },
  ];
  await assert.rejects(
    client().getResponse({ messages, tools: [], sampling: {}, sessionId: "img", turn: 0 }),
    (e: Error) =>
      e.name === "UnsupportedError" && /message 0 \(user\) has a non-text content part/.test(e.message),
  );
  assert.equal(seen.length, 0);
});
