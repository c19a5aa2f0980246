/**
 * When the generic renderer cannot bridge, the TrainClient renders the turn in full, the trace
 * forks a new branch exactly when the full render's ids differ from the sampled ones, and the
 * sampled node records `bridge_declined` with the renderer's reason. Real parts throughout: the
 * engine serves the same checkpoint folder (Llama 3.1's tokenizer with the templates below), and
 * the TrainClient's renderer is `createRenderer` on that folder, as an eval would build it.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { TrainClient } from "../../packages/core/src/clients/train.ts";
import { createRenderer, JinjaRenderer } from "../../packages/core/src/renderers/index.ts";
import type { TraceRecord } from "../../packages/core/src/trace/record.ts";
import { SglangTransport } from "../../packages/core/src/transport/index.ts";
import type { Message } from "../../packages/core/src/types.ts";
import { startEngine } from "../../packages/engine/src/index.ts";
import { checkpointFolder, type FamilyPackage } from "../checkpoint-folders.ts";
import { bareSession } from "../runtime/helpers/session.ts";

const TURN = "'<|start_header_id|>' + m['role'] + '<|end_header_id|>\\n\\n' + m['content'] + '<|eot_id|>'";
const GEN =
  "{% if add_generation_prompt %}{{ '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}{% endif %}";
/** Writes the number of messages up front: every new turn rewrites the start of the prompt. */
const COUNTING = `{{ bos_token }}{{ 'Messages: ' + (messages | length | string) }}{% for m in messages %}{{ ${TURN} }}{% endfor %}${GEN}`;
/** Append-only, but loops over indices: which message wrote which text cannot be read from one render. */
const BY_INDEX = `{{ bos_token }}{% for i in range(messages | length) %}{% set m = messages[i] %}{{ ${TURN} }}{% endfor %}${GEN}`;

async function twoTurns(pkg: FamilyPackage, template: string) {
  const dir = checkpointFolder(pkg, template);
  const prompts: number[][] = [];
  const engine = await startEngine({
    model: dir,
    policy: (ctx) => `reply ${ctx.promptIds.length}`,
    onRequest: (body) => prompts.push((body as { input_ids: number[] }).input_ids),
  });
  const renderer = createRenderer(dir, { onWarning: () => {} });
  const client = new TrainClient({ renderer, transport: new SglangTransport({ baseUrl: engine.url }) });
  try {
    const { session, trace } = bareSession(client);
    const history: Message[] = [{ role: "user", content: "first question" }];
    const r1 = await session.complete(history, [], {});
    assert.equal(r1.kind, "completion");
    const reply = r1.kind === "completion" ? r1.response.message : null;
    assert.ok(reply);
    const next: Message[] = [...history, reply, { role: "user", content: "second question" }];
    await session.complete(next, [], {});
    assert.equal(prompts.length, 2);
    return { renderer, client, record: trace.toRecord(), prompts, next };
  } finally {
    await client.close();
    await engine.close();
  }
}

const sampledNodes = (record: TraceRecord) => record.nodes.filter((n) => n.sampled);

test("a template that is not prefix-stable: full render, a new branch, and the reason on the node", async () => {
  const { renderer, client, record, prompts, next } = await twoTurns("llama3_1", COUNTING);
  assert.ok(renderer instanceof JinjaRenderer);
  assert.deepEqual(client.counts, { bridged: 0, rendered: 2, bridgeDeclined: 1, inputsChanged: 0 });
  // The engine got the full render of the whole conversation.
  assert.deepEqual(prompts[1], renderer.render(next, { addGenerationPrompt: true }).tokenIds);
  // Its ids differ from turn 1's at the message count, so the sampled turn 1 is not its prefix…
  assert.notDeepEqual(prompts[1].slice(0, prompts[0]!.length), prompts[0]);
  // …and the trace keeps both as separate branches rather than training on unseen tokens.
  assert.equal(record.branches.length, 2);
  for (const b of record.branches) assert.ok(prompts.some((p) => p.every((id, i) => b.token_ids[i] === id)));
  const [first, second] = sampledNodes(record);
  assert.equal(first!.bridge_declined, undefined);
  assert.match(
    second!.bridge_declined ?? "",
    /renders the earlier history differently now \(not append-only\)/,
  );
});

test("a template whose message spans cannot be read: full render, same branch when the ids agree", async () => {
  const { renderer, client, record, prompts, next } = await twoTurns("llama3_1", BY_INDEX);
  assert.deepEqual(client.counts, { bridged: 0, rendered: 2, bridgeDeclined: 1, inputsChanged: 0 });
  assert.deepEqual(prompts[1], renderer.render(next, { addGenerationPrompt: true }).tokenIds);
  // The template is append-only in fact, so the full render extends turn 1's ids: one branch.
  const branch = record.branches;
  assert.equal(branch.length, 1);
  assert.deepEqual(branch[0]!.token_ids.slice(0, prompts[1].length), prompts[1]);
  const [, second] = sampledNodes(record);
  assert.match(second!.bridge_declined ?? "", /message spans cannot be read from one render/);
});
