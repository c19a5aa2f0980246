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
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import type { TrainClient } from "../../packages/core/src/clients/train.ts";
import { InterceptionServer } from "../../packages/core/src/interception/server.ts";
import { type EngineHandle, startEngine } from "../../packages/engine/src/index.ts";
import { qwen3TrainClient } from "../clients/qwen3-client.ts";
import { bareSession } from "../runtime/helpers/session.ts";

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

interface Episode {
  /** One turn; returns the answer as the program's SDK gives it. */
  turn(stream: boolean, tools: typeof TOOLS): Promise<unknown>;
  /** Edits the tool output at history position `i` (the program rewriting its past). */
  edit(): void;
  cut(): void;
}

function chatEpisode(baseURL: string, apiKey: string): Episode {
  const sdk = new OpenAI({ baseURL, apiKey, maxRetries: 0 });
  let messages: OpenAI.ChatCompletionMessageParam[] = [
    { role: "system", content: SYSTEM },
    { role: "user", content: "Read the repository. step 0" },
  ];
  let step = 0;
  return {
    async turn(stream, tools) {
      const body = {
        model: "m",
        messages,
        tools: tools.map((f) => ({ type: "function" as const, function: f })),
      };
      const res = stream
        ? await sdk.chat.completions.stream(body).finalChatCompletion()
        : await sdk.chat.completions.create(body);
      const msg = res.choices[0]!.message;
      messages.push({ role: "assistant", content: msg.content, tool_calls: msg.tool_calls ?? [] });
      step++;
      for (const c of msg.tool_calls ?? [])
        messages.push({ role: "tool", tool_call_id: c.id, content: output(step) });
      return res.choices;
    },
    edit() {
      messages[3] = { ...(messages[3] as OpenAI.ChatCompletionToolMessageParam), content: "edited output" };
    },
    cut() {
      messages = messages.slice(0, 6);
    },
  };
}

function responsesEpisode(baseURL: string, apiKey: string): Episode {
  const sdk = new OpenAI({ baseURL, apiKey, maxRetries: 0 });
  let input: OpenAI.Responses.ResponseInputItem[] = [
    { role: "user", content: "Read the repository. step 0" },
  ];
  let step = 0;
  return {
    async turn(stream, tools) {
      const body = {
        model: "m",
        instructions: SYSTEM,
        input,
        tools: tools.map((t) => ({ type: "function" as const, strict: false, ...t })),
      };
      const res = stream
        ? await sdk.responses.stream(body).finalResponse()
        : await sdk.responses.create(body);
      step++;
      for (const item of res.output) {
        input.push(item as OpenAI.Responses.ResponseInputItem);
        if (item.type === "function_call")
          input.push({ type: "function_call_output", call_id: item.call_id, output: output(step) });
      }
      return res.output.map((o) => ({ ...o, id: undefined }));
    },
    edit() {
      const i = input.findIndex((x) => (x as { type?: string }).type === "function_call_output");
      input[i] = {
        ...(input[i] as OpenAI.Responses.ResponseInputItem.FunctionCallOutput),
        output: "edited output",
      };
    },
    cut() {
      input = input.slice(0, 5);
    },
  };
}

function anthropicEpisode(baseURL: string, apiKey: string): Episode {
  const sdk = new Anthropic({ baseURL: baseURL.replace(/\/v1$/, ""), apiKey, maxRetries: 0 });
  let messages: Anthropic.MessageParam[] = [{ role: "user", content: "Read the repository. step 0" }];
  let step = 0;
  return {
    async turn(stream, tools) {
      const body = {
        model: "m",
        system: SYSTEM,
        messages,
        max_tokens: 512,
        tools: tools.map((t) => ({
          name: t.name,
          description: t.description,
          input_schema: t.parameters as Anthropic.Tool.InputSchema,
        })),
      };
      const res = stream ? await sdk.messages.stream(body).finalMessage() : await sdk.messages.create(body);
      messages.push({ role: "assistant", content: res.content });
      step++;
      const results = res.content
        .filter((b) => b.type === "tool_use")
        .map((b) => ({ type: "tool_result" as const, tool_use_id: b.id, content: output(step) }));
      messages.push({ role: "user", content: results });
      return res.content;
    },
    edit() {
      messages[2] = {
        role: "user",
        content: [
          { ...(messages[2]!.content as Anthropic.ToolResultBlockParam[])[0]!, content: "edited output" },
        ],
      };
    },
    cut() {
      messages = messages.slice(0, 5);
    },
  };
}

const EPISODES = { chat: chatEpisode, responses: responsesEpisode, anthropic: anthropicEpisode };

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

async function play(server: InterceptionServer, dialect: keyof typeof EPISODES) {
  // The config's seed: both runs sample the same logprobs.
  const { session, trace } = bareSession(client, { sampling: { seed: 5 } });
  const reg = await server.register(session);
  const episode = EPISODES[dialect](reg.baseUrl, reg.secret);
  const answers: unknown[] = [];
  let tools = TOOLS;
  for (const [t, edit] of PLAN.entries()) {
    if (edit === "edit") episode.edit();
    if (edit === "tools") tools = TOOLS.slice(0, 1);
    if (edit === "cut") episode.cut();
    answers.push(await episode.turn(t % 2 === 1, tools));
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
