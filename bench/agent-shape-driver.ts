/**
 * The agent side of bench/agent-shape.ts, in its own process so that its cost (the SDKs building
 * and parsing ever longer requests) is not counted as envroll's. It plays N coding-agent episodes
 * through one dialect with the official SDKs, in lockstep: on `go k` every episode sends its
 * turn-k request, and `done k` goes back when all have their answer. The parent times its own
 * CPU between the two, so each turn index gets its own cost.
 *
 * Messages (IPC): ← init · → ready · ← go {turn} · → done {turn, promptTokens} · ← end ·
 * → history {messages} (episode 0's chat-format history, for the re-render yardstick) · exit.
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { type ShapeTool, taskPrompt, toolOutput } from "./lib/agent-shape.ts";

export interface DriverInit {
  type: "init";
  dialect: "chat" | "responses" | "anthropic";
  stream: boolean;
  sessions: { baseUrl: string; secret: string }[];
  system: string;
  tools: ShapeTool[];
  toolWords: number;
}

type Turn = () => Promise<number>;

const MAX_TOKENS = 256;

function chatEpisode(init: DriverInit, e: number, s: DriverInit["sessions"][number]) {
  const client = new OpenAI({ baseURL: s.baseUrl, apiKey: s.secret, maxRetries: 0 });
  const tools = init.tools.map((t) => ({ type: "function" as const, function: t }));
  const messages: OpenAI.ChatCompletionMessageParam[] = [
    { role: "system", content: init.system },
    { role: "user", content: taskPrompt(e) },
  ];
  let step = 0;
  const turn: Turn = async () => {
    const body = { model: "m", messages, tools, max_tokens: MAX_TOKENS };
    const res = init.stream
      ? await client.chat.completions.stream(body).finalChatCompletion()
      : await client.chat.completions.create(body);
    const msg = res.choices[0]!.message;
    messages.push({ role: "assistant", content: msg.content, tool_calls: msg.tool_calls ?? [] });
    step++;
    for (const call of msg.tool_calls ?? [])
      messages.push({ role: "tool", tool_call_id: call.id, content: toolOutput(e, step, init.toolWords) });
    return res.usage?.prompt_tokens ?? 0;
  };
  return { turn, history: () => messages };
}

function responsesEpisode(init: DriverInit, e: number, s: DriverInit["sessions"][number]) {
  const client = new OpenAI({ baseURL: s.baseUrl, apiKey: s.secret, maxRetries: 0 });
  const tools = init.tools.map((t) => ({ type: "function" as const, strict: false, ...t }));
  const input: OpenAI.Responses.ResponseInputItem[] = [{ role: "user", content: taskPrompt(e) }];
  let step = 0;
  const turn: Turn = async () => {
    const body = { model: "m", instructions: init.system, input, tools, max_output_tokens: MAX_TOKENS };
    const res = init.stream
      ? await client.responses.stream(body).finalResponse()
      : await client.responses.create(body);
    step++;
    for (const item of res.output) {
      input.push(item as OpenAI.Responses.ResponseInputItem);
      if (item.type === "function_call")
        input.push({
          type: "function_call_output",
          call_id: item.call_id,
          output: toolOutput(e, step, init.toolWords),
        });
    }
    return res.usage?.input_tokens ?? 0;
  };
  return { turn, history: () => input };
}

function anthropicEpisode(init: DriverInit, e: number, s: DriverInit["sessions"][number]) {
  const client = new Anthropic({ baseURL: s.baseUrl.replace(/\/v1$/, ""), apiKey: s.secret, maxRetries: 0 });
  const tools = init.tools.map((t) => ({
    name: t.name,
    description: t.description,
    input_schema: t.parameters as Anthropic.Tool.InputSchema,
  }));
  const messages: Anthropic.MessageParam[] = [{ role: "user", content: taskPrompt(e) }];
  let step = 0;
  const turn: Turn = async () => {
    const body = { model: "m", system: init.system, messages, tools, max_tokens: MAX_TOKENS };
    const res = init.stream
      ? await client.messages.stream(body).finalMessage()
      : await client.messages.create(body);
    messages.push({ role: "assistant", content: res.content });
    step++;
    const results = res.content
      .filter((b) => b.type === "tool_use")
      .map((b) => ({
        type: "tool_result" as const,
        tool_use_id: b.id,
        content: toolOutput(e, step, init.toolWords),
      }));
    if (results.length > 0) messages.push({ role: "user", content: results });
    return res.usage.input_tokens;
  };
  return { turn, history: () => messages };
}

const EPISODES = { chat: chatEpisode, responses: responsesEpisode, anthropic: anthropicEpisode };

let episodes: { turn: Turn; history: () => unknown[] }[] = [];
const send = (m: unknown) => process.send!(m);

process.on("message", async (m: DriverInit | { type: "go"; turn: number } | { type: "end" }) => {
  try {
    if (m.type === "init") {
      episodes = m.sessions.map((s, e) => EPISODES[m.dialect](m, e, s));
      send({ type: "ready" });
    } else if (m.type === "go") {
      const tokens = await Promise.all(episodes.map((ep) => ep.turn()));
      send({ type: "done", turn: m.turn, promptTokens: tokens[0] });
    } else {
      send({ type: "history", messages: episodes[0]?.history() ?? [] });
      process.disconnect();
    }
  } catch (e) {
    send({ type: "error", message: e instanceof Error ? `${e.message}\n${e.stack}` : String(e) });
    process.disconnect();
  }
});
