import assert from "node:assert/strict";
import { test } from "node:test";
import type { ModelResponse } from "../../packages/core/src/clients/client.ts";
import { branchRecords } from "../../packages/core/src/trace/branches.ts";
import { messageHash } from "../../packages/core/src/trace/hash.ts";
import { Trace } from "../../packages/core/src/trace/trace.ts";
import type { AssistantMessage, Message } from "../../packages/core/src/types.ts";
import { END, ScriptedClient, say, toyRender } from "./helpers/scripted-client.ts";

const sys: Message = { role: "system", content: "be brief" };
const user = (c: string): Message => ({ role: "user", content: c });

/** Commits one turn through the scripted token client, as the interception session does. */
async function turn(trace: Trace, client: ScriptedClient, messages: Message[]): Promise<ModelResponse> {
  const plan = trace.graph.prepareTurn(messages);
  const r = await client.getResponse({
    messages,
    tools: [],
    sampling: {},
    sessionId: trace.id,
    turn: trace.numTurns,
  });
  trace.recordTurn(plan, r);
  return r;
}

test("hash: tool-call arguments compare as canonical JSON; content differences do not", () => {
  const a: AssistantMessage = {
    role: "assistant",
    content: null,
    tool_calls: [{ id: "1", name: "f", arguments: '{"b":1,"a":[2,{"d":1,"c":2}]}' }],
  };
  const b: AssistantMessage = {
    role: "assistant",
    content: null,
    tool_calls: [{ id: "1", name: "f", arguments: '{"a":[2,{"c":2,"d":1}],"b":1}' }],
  };
  assert.equal(messageHash(a), messageHash(b));
  assert.notEqual(
    messageHash(a),
    messageHash({ ...b, tool_calls: [{ id: "2", name: "f", arguments: "{}" }] }),
  );
  assert.notEqual(messageHash(user("x")), messageHash({ role: "system", content: "x" }));
  assert.notEqual(
    messageHash(say("x")),
    messageHash({ role: "assistant", content: "x", reasoning_content: "r" }),
  );
});

test("graph dedups a re-sent history: text-level turns extend one path", async () => {
  const client = new ScriptedClient(() => say("ok"));
  const trace = new Trace({ idx: 0 });
  const r1 = await turn(trace, client, [sys, user("a")]);
  await turn(trace, client, [sys, user("a"), r1.message, user("b")]);
  // sys, a, reply, b, reply: no duplicated prefix nodes
  assert.equal(trace.graph.nodes.length, 5);
  assert.equal(trace.numTurns, 2);
  assert.deepEqual(
    branchRecords(trace.graph).map((b) => b.node_indices),
    [[0, 1, 2, 3, 4]],
  );
  assert.equal(trace.messages.length, 5);
});

test("token branch equals the last turn's prompt_ids + completion_ids exactly", async () => {
  const client = new ScriptedClient((m) => say(`reply${m.length}`), { tokens: true });
  const trace = new Trace({ idx: 0 });
  let msgs: Message[] = [sys, user("hello")];
  let last!: ModelResponse;
  for (let i = 0; i < 4; i++) {
    last = await turn(trace, client, msgs);
    msgs = [...msgs, last.message, { role: "tool", tool_call_id: `t${i}`, content: `out${i}` }];
  }
  const branches = branchRecords(trace.graph);
  assert.equal(branches.length, 1, "no fork: the toy render is append-only");
  const b = branches[0]!;
  assert.deepEqual(b.token_ids, [...last.tokens!.promptIds, ...last.tokens!.completionIds]);
  const sampled = b.sampled_mask.filter(Boolean).length;
  // Each of the 4 completions is sampled; nothing else is.
  assert.equal(
    sampled,
    trace.graph.nodes.filter((n) => n.sampled).reduce((s, n) => s + n.mask!.filter(Boolean).length, 0),
  );
  assert.equal(b.logprobs.length, b.token_ids.length);
  b.sampled_mask.forEach((m, i) => {
    if (!m) assert.equal(b.logprobs[i], 0);
  });
  // The assistant node carries the generation prompt as unsampled scaffold, then the completion.
  const reply = trace.graph.nodes.find((n) => n.sampled)!;
  assert.equal(reply.mask![0], false);
  assert.ok(reply.mask!.slice(1).every(Boolean));
  assert.equal(reply.tokenIds!.at(-1), END);
  // Input nodes own their renderer span; a message node ends with its END token.
  assert.equal(trace.graph.nodes[1]!.tokenIds!.at(-1), END);
});

test("a token mismatch forks at the first differing node", async () => {
  // The reply has reasoning that is sampled but dropped from re-rendered history, so the next
  // prompt's tokens for the assistant message differ from what was sampled.
  const client = new ScriptedClient(
    (m) => ({ role: "assistant", content: `a${m.length}`, reasoning_content: "think" }),
    {
      tokens: true,
    },
  );
  const trace = new Trace({ idx: 0 });
  const r1 = await turn(trace, client, [sys, user("q")]);
  const history = [sys, user("q"), r1.message, user("more")];
  const r2 = await turn(trace, client, history);
  const branches = branchRecords(trace.graph);
  assert.equal(branches.length, 2, "fork: the first sample and the re-rendered continuation");
  // sys and q are shared; the re-rendered assistant message is a new, unsampled node.
  assert.deepEqual(branches[0]!.node_indices.slice(0, 2), [0, 1]);
  assert.deepEqual(branches[1]!.node_indices.slice(0, 2), [0, 1]);
  const forked = trace.graph.nodes[branches[1]!.node_indices[2]!]!;
  assert.equal(forked.sampled, false);
  assert.equal(forked.message, r1.message);
  assert.deepEqual(branches[1]!.token_ids, [...r2.tokens!.promptIds, ...r2.tokens!.completionIds]);
  assert.deepEqual(branches[0]!.token_ids, [...r1.tokens!.promptIds, ...r1.tokens!.completionIds]);
  // Text-level the same history would have been reused (same message hash).
  assert.equal(trace.graph.prepareTurn(history).prefix.length, 4);
});

test("compaction: a prompt that extends no path starts a new root and a new branch", async () => {
  const client = new ScriptedClient(() => say("done"), { tokens: true });
  const trace = new Trace({ idx: 0 });
  const r1 = await turn(trace, client, [sys, user("long task")]);
  await turn(trace, client, [sys, user("long task"), r1.message, user("continue")]);
  const r3 = await turn(trace, client, [{ role: "system", content: "notes" }, user("summary so far")]);
  const roots = trace.graph.nodes.filter((n) => n.parent === null);
  assert.equal(roots.length, 2);
  const branches = branchRecords(trace.graph);
  assert.equal(branches.length, 2);
  assert.deepEqual(branches[1]!.token_ids, [...r3.tokens!.promptIds, ...r3.tokens!.completionIds]);
  assert.equal(trace.lastReply, "done");
  assert.deepEqual(
    trace.messages.map((m) => m.role),
    ["system", "user", "assistant"],
  );
});

test("fromReplies builds an offline trace; record fields follow the spec", () => {
  const t = Trace.fromReplies({ idx: 3, prompt: "p" }, [
    user("p"),
    say("  first "),
    user("again"),
    { role: "assistant", content: " final\n", reasoning_content: "hidden" },
  ]);
  const r = t.toRecord();
  assert.equal(r.num_turns, 2);
  assert.equal(r.last_reply, "final");
  assert.equal(r.stop_condition, "agent_completed");
  assert.equal(r.is_truncated, false);
  assert.equal(r.branches.length, 1);
  assert.match(r.id, /^[0-9a-f]{32}$/);
  t.stop("max_turns");
  assert.equal(t.stopCondition, "agent_completed", "the first stop condition wins");
  const t2 = new Trace({ idx: 0 });
  t2.stop("harness_timeout");
  assert.equal(t2.isTruncated, true);
});

test("toy render sanity: the sampled assistant tokens re-render identically", () => {
  const m = say("hi");
  const r = toyRender([user("x"), m]);
  assert.deepEqual(r.ids.slice(-5), [1002, 104, 105, END, 1002]);
});

test("end to end with token ids: a tool episode is one exact branch", async () => {
  const { defineTaskset } = await import("../../packages/core/src/task.ts");
  const { envFor } = await import("./helpers/env.ts");
  const { callTool } = await import("./helpers/scripted-client.ts");
  const ts = defineTaskset({
    id: "tok",
    load: () => [{ idx: 0, system_prompt: "s", prompt: "count" }],
    tools: [
      {
        name: "inc",
        description: "",
        parameters: { type: "object" },
        execute: (a: { n: number }) => String(a.n + 1),
      },
    ],
  });
  const client = new ScriptedClient(
    (m) => (m.length < 6 ? callTool("inc", { n: m.length }, `c${m.length}`) : say("done")),
    { tokens: true },
  );
  const [r] = await (await envFor(ts)).runGroup(0, 1, { client });
  assert.equal(r!.num_turns, 3);
  assert.equal(r!.branches.length, 1);
  const last = client.requests.at(-1)!;
  const lastRender = toyRender(last.messages).ids;
  const completion = r!.branches[0]!.token_ids.slice(lastRender.length);
  assert.deepEqual(r!.branches[0]!.token_ids.slice(0, lastRender.length), lastRender);
  assert.equal(completion.at(-1), END);
  assert.ok(r!.branches[0]!.sampled_mask.slice(lastRender.length).every(Boolean));
});

test("a sampled turn shared by two branches is loss-masked in exactly one of them", async () => {
  // Two continuations of the same sampled turn 1 (a program that branches after a tool result):
  // both branches carry turn 1's tokens, but training on them twice would double its weight.
  const client = new ScriptedClient((m) => say(`a${m.length}`), { tokens: true });
  const trace = new Trace({ idx: 0 });
  const r1 = await turn(trace, client, [sys, user("q")]);
  await turn(trace, client, [sys, user("q"), r1.message, user("left")]);
  await turn(trace, client, [sys, user("q"), r1.message, user("right")]);
  const branches = branchRecords(trace.graph);
  assert.equal(branches.length, 2);
  const shared = trace.graph.nodes.findIndex((n) => n.sampled && n.message === r1.message);
  const maskedIn = branches.filter((b) => {
    let at = 0;
    for (const i of b.node_indices) {
      const n = trace.graph.nodes[i]!.tokenIds!.length;
      if (i === shared) return b.sampled_mask.slice(at, at + n).some(Boolean);
      at += n;
    }
    return false;
  });
  assert.equal(maskedIn.length, 1, "turn 1 trains once");
  assert.ok(
    branches.every((b) => b.node_indices.includes(shared)),
    "both still carry it as context",
  );
  for (const b of branches) {
    // Each branch still trains on its own last turn, with logprobs only where it trains.
    assert.ok(b.sampled_mask.at(-1));
    b.sampled_mask.forEach((m, k) => {
      if (!m) assert.equal(b.logprobs[k], 0);
    });
  }
});

test("trace ids are random version-4 UUIDs as 32 hex digits, distinct across pool refills", () => {
  const ids = new Set<string>();
  for (let i = 0; i < 600; i++) {
    const id = new Trace({ idx: i }).id;
    assert.match(id, /^[0-9a-f]{12}4[0-9a-f]{3}[89ab][0-9a-f]{15}$/);
    ids.add(id);
  }
  assert.equal(ids.size, 600);
});
