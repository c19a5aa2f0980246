/**
 * The TrainClient renders a group's shared first turn once: the other rollouts of the group get
 * the same prompt ids and attribution without a render, every rollout's own reply still extends
 * exactly its own prompt (the cached ids are shared, their extensions are not), and a
 * conversation that differs in any field is rendered anew.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { TurnTokens } from "../../packages/core/src/clients/client.ts";
import { PromptCache } from "../../packages/core/src/clients/prompt-cache.ts";
import { TrainClient } from "../../packages/core/src/clients/train.ts";
import { loadEnvironment } from "../../packages/core/src/environment.ts";
import { loadConfig } from "../../packages/core/src/loaders/config.ts";
import { createRenderer } from "../../packages/core/src/renderers/index.ts";
import type { Renderer } from "../../packages/core/src/renderers/renderer.ts";
import { SglangTransport } from "../../packages/core/src/transport/index.ts";
import type { Message } from "../../packages/core/src/types.ts";
import { type EngineHandle, startEngine } from "../../packages/engine/src/index.ts";

let engine: EngineHandle;
let replies = 0;
const sent: number[][] = [];

before(async () => {
  // A different reply per request, so the rollouts' extensions of the shared prompt diverge.
  engine = await startEngine({
    policy: () => `reply number ${replies++}`,
    onRequest: (body) => sent.push((body as { input_ids: number[] }).input_ids),
  });
});
after(async () => {
  await engine.close();
});

/** The qwen3 renderer, counting its full renders. */
function counted(): { renderer: Renderer; renders: () => number } {
  const inner = createRenderer("qwen3");
  let renders = 0;
  const renderer = Object.create(inner) as Renderer;
  renderer.render = (messages, options) => {
    renders++;
    return inner.render(messages, options);
  };
  return { renderer, renders: () => renders };
}

const opening = (): Message[] => [
  { role: "system", content: "Reverse the text." },
  { role: "user", content: "abc def" },
];

test("a group's first turn is rendered once; each rollout's next turn extends its own reply", async () => {
  const { renderer, renders } = counted();
  const client = new TrainClient({ renderer, transport: new SglangTransport({ baseUrl: engine.url }) });
  sent.length = 0;
  const ask = (messages: Message[], sessionId: string, turn: number) =>
    client.getResponse({ messages, tools: [], sampling: { max_tokens: 16 }, sessionId, turn });
  // Fresh message objects per rollout, as every rollout builds its own prompt.
  const firsts = await Promise.all(["g0", "g1", "g2"].map((s) => ask(opening(), s, 0)));
  assert.equal(renders(), 1, "one render for the group");
  assert.equal(client.cachedRenders, 2);
  const expected = createRenderer("qwen3").render(opening(), { addGenerationPrompt: true });
  for (const [i, r] of firsts.entries()) {
    assert.deepEqual([...r.tokens!.promptIds], expected.tokenIds, `rollout ${i} prompt`);
    assert.deepEqual(r.tokens!.promptMessageIndices, expected.messageIndices);
    assert.deepEqual(sent[i], expected.tokenIds, `rollout ${i} sent the rendered prompt`);
  }
  const texts = new Set(firsts.map((r) => r.message.content));
  assert.equal(texts.size, 3, "the replies differ");

  // Each rollout continues from its own reply: the bridged prompt carries exactly its tokens.
  for (const [i, r] of firsts.entries()) {
    const next = await ask([...opening(), r.message, { role: "user", content: "again" }], `g${i}`, 1);
    assert.ok(next.tokens?.bridged, `rollout ${i} bridged`);
    const carried = [...r.tokens!.promptIds, ...r.tokens!.completionIds];
    assert.deepEqual([...next.tokens!.promptIds].slice(0, carried.length), carried, `rollout ${i} history`);
    assert.deepEqual(sent.at(-1), [...next.tokens!.promptIds], `rollout ${i} sent its own history`);
  }

  // Any field of a message is part of the key (a template may render a `name`).
  const named = opening();
  (named[1] as Message & { name?: string }).name = "alice";
  await ask(named, "g3", 0);
  assert.equal(renders(), 2, "a conversation differing in a field is rendered");
  assert.equal(client.cachedRenders, 2);
  await client.close();
});

test("an episode of one rollout keeps no first-turn prompt (no other rollout shares it); a group does", async () => {
  const { renderer, renders } = counted();
  const client = new TrainClient({ renderer, transport: new SglangTransport({ baseUrl: engine.url }) });
  const config = await loadConfig(
    { taskset: { id: "reverse-text" }, model: "envroll-engine/reference", num_tasks: 2 },
    undefined,
    {},
  );
  const env = await loadEnvironment(config, {});
  try {
    await env.runGroup(0, 1, { client });
    await env.runGroup(0, 1, { client });
    assert.equal(renders(), 2, "each lone rollout rendered its own prompt");
    assert.equal(client.cachedRenders, 0);
    await env.runGroup(1, 3, { client });
    assert.equal(renders(), 3, "one render for the group of three");
    assert.equal(client.cachedRenders, 2);
  } finally {
    await env.close();
    await client.close();
  }
});

test("promptCache: 0 renders every rollout", async () => {
  const { renderer, renders } = counted();
  const client = new TrainClient({
    renderer,
    transport: new SglangTransport({ baseUrl: engine.url }),
    promptCache: 0,
  });
  for (const s of ["a", "b"])
    await client.getResponse({
      messages: opening(),
      tools: [],
      sampling: { max_tokens: 8 },
      sessionId: s,
      turn: 0,
    });
  assert.equal(renders(), 2);
  await client.close();
});

test("PromptCache: equal conversations hit, any JSON difference misses, entries are snapshots", () => {
  const cache = new PromptCache(2);
  const tokens = (tag: number) => ({ tag }) as unknown as TurnTokens;
  const conv = (user = "abc def", system = "Reverse the text."): Message[] => [
    { role: "system", content: system },
    { role: "user", content: user },
  ];
  cache.set(conv(), "fp", tokens(1));
  assert.equal((cache.get(conv(), "fp") as unknown as { tag: number })?.tag, 1, "fresh equal objects hit");
  assert.equal(cache.get(conv(), "fp2"), undefined, "another fingerprint");
  assert.equal(cache.get(conv("abc def", "Other."), "fp"), undefined, "another system message");
  assert.equal(cache.get(conv().slice(1), "fp"), undefined, "a message fewer");
  const named = conv();
  (named[1] as Message & { name?: string }).name = "alice";
  assert.equal(cache.get(named, "fp"), undefined, "an extra field");
  const reordered = conv();
  reordered[1] = { content: "abc def", role: "user" } as Message;
  assert.equal(cache.get(reordered, "fp"), undefined, "other key order, other JSON");
  assert.equal(cache.get([...conv(), { role: "assistant", content: "x" }], "fp"), undefined);

  // A stored conversation is a snapshot: mutating the caller's objects changes nothing.
  const mutable = conv("xyz");
  cache.set(mutable, "fp", tokens(2));
  (mutable[1] as { content: string }).content = "changed";
  assert.equal(cache.get(mutable, "fp"), undefined);
  assert.equal((cache.get(conv("xyz"), "fp") as unknown as { tag: number })?.tag, 2);

  // Non-plain messages (content parts, extra fields) match by their JSON.
  const parts = (): Message[] =>
    [{ role: "user", content: [{ type: "text", text: "hi" }] }] as unknown as Message[];
  cache.set(parts(), "fp", tokens(3));
  assert.equal((cache.get(parts(), "fp") as unknown as { tag: number })?.tag, 3);
  cache.set(named, "fp", tokens(4));
  const named2 = conv();
  (named2[1] as Message & { name?: string }).name = "alice";
  assert.equal((cache.get(named2, "fp") as unknown as { tag: number })?.tag, 4);

  // Capacity 2, least recently used out first: parts evicted "abc def", named then evicted
  // "xyz" (refreshed by its hit, but older than parts).
  assert.equal(cache.get(conv("xyz"), "fp"), undefined, "evicted");
  assert.equal((cache.get(parts(), "fp") as unknown as { tag: number })?.tag, 3, "kept");
});
