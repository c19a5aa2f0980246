/**
 * The client session's bridge plan: which sampled turn a prompt may be bridged from.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  ClientSession,
  ClientSessions,
  renderFingerprint,
} from "../../packages/core/src/clients/client-session.ts";
import { TokenSequence } from "../../packages/core/src/token-sequence.ts";
import { messageHash } from "../../packages/core/src/trace/hash.ts";
import type { Message, Tool } from "../../packages/core/src/types.ts";

const sys: Message = { role: "system", content: "be brief" };
const user = (c: string): Message => ({ role: "user", content: c });
const reply = (c: string): Message => ({ role: "assistant", content: c });
const tool: Tool = { name: "f", description: "", parameters: { type: "object" } };
const fp = (tools: Tool[] = [], enableThinking?: boolean) =>
  renderFingerprint({ tools, enableThinking, chatTemplateKwargs: undefined, systemPrompt: sys });

function sampled(session: ClientSession, prompt: Message[], answer: Message, fingerprint = fp()) {
  session.record({
    path: [...prompt, answer].map(messageHash),
    promptIds: TokenSequence.from([prompt.length]),
    completionIds: [answer.content?.length ?? 0],
    fingerprint,
  });
}
const plan = (s: ClientSession, m: Message[], f = fp()) => s.plan(m, m.map(messageHash), f);

test("a prompt extending a sampled turn by tool/user messages bridges from it", () => {
  const s = new ClientSession(4);
  const r1 = reply("a");
  sampled(s, [sys, user("q")], r1);
  const p = plan(s, [sys, user("q"), r1, { role: "tool", tool_call_id: "x", content: "1" }, user("go")]);
  assert.equal(p.kind, "bridge");
  assert.deepEqual(p.kind === "bridge" && p.newMessages.map((m) => m.role), ["tool", "user"]);
  assert.equal(plan(s, [sys, user("q"), r1, reply("injected")]).kind, "render", "an injected assistant turn");
  assert.equal(plan(s, [sys, user("other")]).kind, "render", "another conversation");
  assert.equal(plan(s, [sys, user("q"), r1]).kind, "render", "nothing new to bridge");
});

test("a changed render input (tools, thinking) is a full render, counted as inputsChanged", () => {
  const s = new ClientSession(4);
  const r1 = reply("a");
  sampled(s, [sys, user("q")], r1, fp([tool]));
  const next = [sys, user("q"), r1, user("more")];
  assert.equal(plan(s, next, fp([tool])).kind, "bridge");
  assert.deepEqual(plan(s, next, fp([tool, { ...tool, name: "g" }])), {
    kind: "render",
    inputsChanged: true,
  });
  assert.deepEqual(plan(s, next, fp([tool], false)), { kind: "render", inputsChanged: true });
});

test("interleaved conversations in one rollout each bridge from their own last turn", () => {
  const s = new ClientSession(4);
  const a = reply("a");
  const b = reply("b");
  sampled(s, [sys, user("A")], a);
  sampled(s, [sys, user("B")], b);
  const p = plan(s, [sys, user("A"), a, user("A2")]);
  assert.ok(p.kind === "bridge");
  assert.deepEqual(p.from.promptIds.toArray(), [2], "bridged from conversation A's turn, not the newest (B)");
});

test("tool-call ids are unique within a rollout; ended sessions start over", () => {
  const sessions = new ClientSessions(8, 4);
  const one = sessions.get("r1");
  assert.deepEqual([one.nextToolCallId(), one.nextToolCallId()], ["call_0", "call_1"]);
  assert.equal(sessions.get("r1"), one);
  sessions.end("r1");
  assert.notEqual(sessions.get("r1"), one);
  assert.equal(sessions.size, 1);
});
