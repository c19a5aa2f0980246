/**
 * A resent history parsed past its shared bytes (interception/resent-request.ts) gives a rollout
 * exactly what parsing every body whole gives: the same answers to the program and the same
 * trace (nodes, token ids, logprobs, branches). Each dialect is played with its official SDK
 * for ten turns, streaming every other turn, with an earlier message edited in the middle (a
 * fork), the tool set changed and the history cut back, once on a server that reuses resent
 * bodies and once on one that parses every body whole. Real parts: the SDKs, the interception
 * server, the TrainClient with the Qwen3 renderer, the stand-in engine with a seeded policy.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type Anthropic from "@anthropic-ai/sdk";
import type OpenAI from "openai";
import type { TrainClient } from "../../packages/core/src/clients/train.ts";
import { anthropicDialect } from "../../packages/core/src/interception/dialects/anthropic/index.ts";
import { chatDialect } from "../../packages/core/src/interception/dialects/chat.ts";
import { responsesDialect } from "../../packages/core/src/interception/dialects/responses/index.ts";
import { ResentBody } from "../../packages/core/src/interception/resent-body.ts";
import { InterceptionServer } from "../../packages/core/src/interception/server.ts";
import { type EngineHandle, startEngine } from "../../packages/engine/src/index.ts";
import { qwen3TrainClient } from "../clients/qwen3-client.ts";
import { bareSession } from "../runtime/helpers/session.ts";
import { SDK_AGENTS } from "./sdk-agents.ts";

let engine: EngineHandle;
let client: TrainClient;
const fast = new InterceptionServer({ keepaliveMs: 0 });
const plain = new InterceptionServer({ keepaliveMs: 0, reuseResent: false });

before(async () => {
  engine = await startEngine({
    policy: (ctx) => {
      const step = Number(/step (\d+)/.exec(ctx.lastMessage?.content ?? "")?.[1] ?? 0) + 1;
      return {
        turn: {
          content: `Reading part ${step} «next» now.`,
          tool_calls: [{ name: "exec", arguments: { cmd: `cat part${step}.txt`, n: step } }],
        },
      };
    },
  });
  client = qwen3TrainClient(engine.url, { contextLength: 16384 });
});
after(async () => {
  await fast.close();
  await plain.close();
  await client.close();
  await engine.close();
});

const TOOLS = [
  {
    name: "exec",
    description: "Runs a shell command.",
    parameters: { type: "object", properties: { cmd: { type: "string" } } },
  },
  {
    name: "read",
    description: "Reads a file «utf-8».",
    parameters: { type: "object", properties: { path: { type: "string" } } },
  },
];
const SYSTEM = `You are a coding agent. ${"Follow the rules; 日本語 too. ".repeat(40)}`;
const output = (step: number) => `step ${step} done\n${"line of output ✓ ".repeat(10 + step)}`;

/** What the program does between turns: 0-3 grow, 4 edits an earlier tool output, 6 drops a tool, 8 cuts the history back. */
type Edit = "none" | "edit" | "tools" | "cut";
const PLAN: Edit[] = ["none", "none", "none", "none", "edit", "none", "tools", "none", "cut", "none"];

type Dialect = keyof typeof SDK_AGENTS;

/** How the program rewrites its past in each dialect: one tool output edited, the history cut back to `cut` entries. */
const REWRITES: {
  [D in Dialect]: { edit(history: ReturnType<(typeof SDK_AGENTS)[D]>["history"]): void; cut: number };
} = {
  chat: {
    edit: (h) => {
      h[3] = { ...(h[3] as OpenAI.ChatCompletionToolMessageParam), content: "edited output" };
    },
    cut: 6,
  },
  responses: {
    edit: (h) => {
      const i = h.findIndex((x) => (x as { type?: string }).type === "function_call_output");
      h[i] = { ...(h[i] as OpenAI.Responses.ResponseInputItem.FunctionCallOutput), output: "edited output" };
    },
    cut: 5,
  },
  anthropic: {
    edit: (h) => {
      h[2] = {
        role: "user",
        content: [{ ...(h[2]!.content as Anthropic.ToolResultBlockParam[])[0]!, content: "edited output" }],
      };
    },
    cut: 5,
  },
};

/** What differs run to run by design: random ids, clocks, the engine's prefix-cache hits (warmer the second time). */
const UNSTABLE = new Set([
  "id",
  "timestamp",
  "created",
  "created_at",
  "timing",
  "cached_tokens",
  "cache_read_input_tokens",
]);

function stable(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (k, v) => (UNSTABLE.has(k) ? undefined : v)));
}

async function play(server: InterceptionServer, dialect: Dialect) {
  // The config's seed: both runs sample the same logprobs.
  const { session, trace } = bareSession(client, { sampling: { seed: 5 } });
  const reg = await server.register(session);
  const agent = SDK_AGENTS[dialect]({
    baseURL: reg.baseUrl,
    apiKey: reg.secret,
    system: SYSTEM,
    task: "Read the repository. step 0",
    output,
    maxTokens: 512,
  });
  const rewrite = REWRITES[dialect] as { edit(history: unknown[]): void; cut: number };
  const answers: unknown[] = [];
  let tools = TOOLS;
  for (const [t, edit] of PLAN.entries()) {
    if (edit === "edit") rewrite.edit(agent.history);
    if (edit === "tools") tools = TOOLS.slice(0, 1);
    if (edit === "cut") agent.history.length = rewrite.cut;
    answers.push((await agent.turn(t % 2 === 1, tools)).reply);
  }
  reg.dispose();
  client.endSession(trace.id);
  return { answers: stable(answers), trace: stable(trace.toRecord()) as Record<string, unknown> };
}

for (const dialect of ["chat", "responses", "anthropic"] as const) {
  test(`${dialect}: reusing the resent history answers and records exactly what parsing it whole does`, async () => {
    const before = { ...fast.resent };
    const a = await play(fast, dialect);
    const b = await play(plain, dialect);
    const reused = fast.resent.reusedElements - before.reusedElements;
    assert.ok(reused >= 2 * PLAN.length, `the fast server reused ${reused} history elements`);
    assert.equal(plain.resent.bodies, 0, "the reference server parsed every body whole");
    assert.deepStrictEqual(a.answers, b.answers);
    assert.deepStrictEqual(a.trace, b.trace);
    // The edit forked the trace and the cut went back to an earlier node: both paths saw them.
    assert.ok((a.trace["branches"] as unknown[]).length >= 2, "the edited history is a second branch");
    assert.equal(a.trace["num_turns"], PLAN.length);
  });
}

test("a remembered translation is used only for the same wire objects (a Responses run that grows is folded again)", () => {
  const said = {
    type: "message",
    role: "assistant",
    content: [{ type: "output_text", text: "Let me look." }],
  };
  const call = { type: "function_call", call_id: "c1", name: "exec", arguments: '{"cmd":"ls"}' };
  const out = { type: "function_call_output", call_id: "c1", output: "a.txt" };
  const user = { role: "user", content: "go" };
  const cases = [
    {
      dialect: responsesDialect,
      key: "input",
      bodies: [
        [user, said],
        [user, said, call, out],
        [user, said, call, out, said],
      ],
    },
    {
      dialect: anthropicDialect,
      key: "messages",
      bodies: [
        [user, { role: "assistant", content: [{ type: "text", text: "Let me look." }] }],
        [
          user,
          {
            role: "assistant",
            content: [
              { type: "text", text: "Let me look." },
              { type: "tool_use", id: "c1", name: "exec", input: { cmd: "ls" } },
            ],
          },
          {
            role: "user",
            content: [
              { type: "tool_result", tool_use_id: "c1", content: "a.txt" },
              { type: "text", text: "and?" },
            ],
          },
        ],
      ],
    },
    {
      dialect: chatDialect,
      key: "messages",
      // A split turn (text, then the calls alone) is merged; resent, the merge is made again.
      bodies: [
        [user, { role: "assistant", content: "Let me look." }],
        [
          user,
          { role: "assistant", content: "Let me look." },
          {
            role: "assistant",
            content: null,
            tool_calls: [{ id: "c1", type: "function", function: { name: "exec", arguments: "{}" } }],
          },
        ],
      ],
    },
  ];
  for (const { dialect, key, bodies } of cases) {
    const body = new ResentBody(key);
    const translated = new WeakMap<object, unknown>();
    for (const history of bodies) {
      const text = JSON.stringify({
        model: "m",
        [key]: history,
        ...(dialect === anthropicDialect ? { max_tokens: 9 } : {}),
      });
      const fast = dialect.parse(body.parse(Buffer.from(text)), { translated });
      const whole = dialect.parse(JSON.parse(text));
      assert.deepStrictEqual(fast.messages, whole.messages, `${dialect.name}: ${text}`);
      assert.equal(JSON.stringify(fast.messages), JSON.stringify(whole.messages));
    }
    assert.ok(body.reused > 0, `${dialect.name} reused the resent elements`);
  }
});
