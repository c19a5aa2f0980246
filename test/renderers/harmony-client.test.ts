/**
 * gpt-oss through the real TrainClient, interception session, transport and engine (serving a
 * gpt-oss checkpoint folder; the policy answers with harmony ids): a tool call's arguments reach the
 * program exactly as sampled, the tool turn is bridged from the sampled ids, and the final answer
 * is parsed from its channel.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { TrainClient } from "../../packages/core/src/clients/train.ts";
import { SglangTransport } from "../../packages/core/src/transport/index.ts";
import type { Message, Tool } from "../../packages/core/src/types.ts";
import { type EngineHandle, startEngine } from "../../packages/engine/src/index.ts";
import { bareSession } from "../runtime/helpers/session.ts";
import { gptOssCheckpoint, gptOssTokenizer, rendererFor } from "./harmony-fixtures.ts";

const LOOKUP: Tool = {
  name: "lookup",
  description: "Look a word up",
  parameters: { type: "object", properties: { arguments: { type: "string" }, n: { type: "integer" } } },
};
// Compact JSON, and a parameter named "arguments": both must reach the tool as sampled.
const ARGS = '{"arguments":"x","n":1}';

let engine: EngineHandle;
const prompts: number[][] = [];
const replies: number[][] = [];

before(async () => {
  const tok = gptOssTokenizer();
  engine = await startEngine({
    model: gptOssCheckpoint(),
    policy: (ctx) => {
      const text = ctx.promptText.includes("<|start|>functions.lookup")
        ? "<|channel|>analysis<|message|>Got it.<|end|><|start|>assistant<|channel|>final<|message|>It means x.<|return|>"
        : `<|channel|>analysis<|message|>Look it up.<|end|><|start|>assistant<|channel|>commentary to=functions.lookup <|constrain|>json<|message|>${ARGS}<|call|>`;
      const ids = tok.encode(text);
      replies.push(ids);
      return { ids };
    },
    onRequest: (body) => prompts.push((body as { input_ids: number[] }).input_ids),
  });
});
after(() => engine.close());

test("gpt-oss through the TrainClient: sampled arguments verbatim, the tool turn bridged, the answer parsed", async () => {
  const renderer = rendererFor();
  const client = new TrainClient({ renderer, transport: new SglangTransport({ baseUrl: engine.url }) });
  const { session } = bareSession(client);
  const history: Message[] = [{ role: "user", content: "What does x mean?" }];
  const r1 = await session.complete(history, [LOOKUP]);
  assert.equal(r1.kind, "completion");
  const reply = r1.kind === "completion" ? r1.response.message : null;
  const call = reply?.tool_calls?.[0];
  assert.ok(reply && call, "turn 1 called a tool");
  assert.equal(call.name, "lookup");
  assert.equal(call.arguments, ARGS);
  assert.equal(reply.reasoning_content, "Look it up.");
  assert.equal(r1.kind === "completion" && r1.response.finishReason, "tool_calls");

  const r2 = await session.complete(
    [...history, reply, { role: "tool", tool_call_id: call.id, content: "x" }],
    [LOOKUP],
  );
  assert.equal(r2.kind, "completion");
  assert.equal(client.counts.bridged, 1);
  const [prompt1, prompt2, reply1] = [prompts[0]!, prompts[1]!, replies[0]!];
  assert.deepEqual(prompt2.slice(0, prompt1.length + reply1.length), [...prompt1, ...reply1]);
  const tail = gptOssTokenizer().decode(prompt2.slice(prompt1.length + reply1.length));
  assert.equal(
    tail,
    '<|start|>functions.lookup to=assistant<|channel|>commentary<|message|>"x"<|end|><|start|>assistant',
  );
  const answer = r2.kind === "completion" ? r2.response.message : null;
  assert.equal(answer?.content, "It means x.");
  assert.equal(answer?.reasoning_content, "Got it.");
});
