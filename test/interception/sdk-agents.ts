/**
 * A coding agent's loop in each dialect, written with the official SDKs: send the history
 * (streamed or not), append the reply, answer every tool call with a tool output. The
 * agent-shape benchmark's driver and the resent-request test both play it; a program may rewrite
 * `history` between turns, as real agents do.
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";

export interface AgentTool {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface SdkAgentOptions {
  baseURL: string;
  apiKey: string;
  system: string;
  /** The first user message. */
  task: string;
  /** The output of each tool call of turn `step` (1, 2, …). */
  output(step: number): string;
  maxTokens: number;
}

export interface SdkAgent<H> {
  /** The conversation in the SDK's own types. */
  history: H[];
  /** One turn with these tools; the prompt tokens the server counted and the reply as the SDK gives it. */
  turn(stream: boolean, tools: readonly AgentTool[]): Promise<{ promptTokens: number; reply: unknown }>;
}

/** What a dialect adds to the loop: its request, its SDK call, and how a reply joins the history. */
interface Dialect<H, B, R> {
  request(history: H[], tools: readonly AgentTool[]): B;
  send(body: B, stream: boolean): Promise<R>;
  /** Appends the reply and an `output()` for each of its tool calls; the prompt tokens and the reply. */
  absorb(res: R, history: H[], output: () => string): { promptTokens: number; reply: unknown };
}

/** The loop every dialect shares. */
function sdkAgent<H, B, R>(o: SdkAgentOptions, history: H[], dialect: Dialect<H, B, R>): SdkAgent<H> {
  let step = 0;
  const agent: SdkAgent<H> = {
    history,
    async turn(stream, tools) {
      const res = await dialect.send(dialect.request(agent.history, tools), stream);
      step++;
      return dialect.absorb(res, agent.history, () => o.output(step));
    },
  };
  return agent;
}

/** `convert(tools)`, converted again only when another tool list is passed (the driver's is always the same one). */
function converted<T>(convert: (tools: readonly AgentTool[]) => T): (tools: readonly AgentTool[]) => T {
  let last: readonly AgentTool[] | null = null;
  let value: T;
  return (tools) => {
    if (tools !== last) {
      value = convert(tools);
      last = tools;
    }
    return value;
  };
}

export function chatAgent(o: SdkAgentOptions): SdkAgent<OpenAI.ChatCompletionMessageParam> {
  const sdk = new OpenAI({ baseURL: o.baseURL, apiKey: o.apiKey, maxRetries: 0 });
  const wire = converted((tools) => tools.map((f) => ({ type: "function" as const, function: f })));
  const first: OpenAI.ChatCompletionMessageParam[] = [
    { role: "system", content: o.system },
    { role: "user", content: o.task },
  ];
  return sdkAgent(o, first, {
    request: (messages, tools) => ({ model: "m", messages, tools: wire(tools), max_tokens: o.maxTokens }),
    send: (body, stream): Promise<OpenAI.ChatCompletion> =>
      stream ? sdk.chat.completions.stream(body).finalChatCompletion() : sdk.chat.completions.create(body),
    absorb(res, messages, output) {
      const msg = res.choices[0]!.message;
      messages.push({ role: "assistant", content: msg.content, tool_calls: msg.tool_calls ?? [] });
      for (const call of msg.tool_calls ?? [])
        messages.push({ role: "tool", tool_call_id: call.id, content: output() });
      return { promptTokens: res.usage?.prompt_tokens ?? 0, reply: res.choices };
    },
  });
}

export function responsesAgent(o: SdkAgentOptions): SdkAgent<OpenAI.Responses.ResponseInputItem> {
  const sdk = new OpenAI({ baseURL: o.baseURL, apiKey: o.apiKey, maxRetries: 0 });
  const wire = converted((tools) => tools.map((t) => ({ type: "function" as const, strict: false, ...t })));
  const first: OpenAI.Responses.ResponseInputItem[] = [{ role: "user", content: o.task }];
  return sdkAgent(o, first, {
    request: (input, tools) => ({
      model: "m",
      instructions: o.system,
      input,
      tools: wire(tools),
      max_output_tokens: o.maxTokens,
    }),
    send: (body, stream): Promise<OpenAI.Responses.Response> =>
      stream ? sdk.responses.stream(body).finalResponse() : sdk.responses.create(body),
    absorb(res, input, output) {
      for (const item of res.output) {
        input.push(item as OpenAI.Responses.ResponseInputItem);
        if (item.type === "function_call")
          input.push({ type: "function_call_output", call_id: item.call_id, output: output() });
      }
      return { promptTokens: res.usage?.input_tokens ?? 0, reply: res.output };
    },
  });
}

export function anthropicAgent(o: SdkAgentOptions): SdkAgent<Anthropic.MessageParam> {
  const sdk = new Anthropic({ baseURL: o.baseURL.replace(/\/v1$/, ""), apiKey: o.apiKey, maxRetries: 0 });
  const wire = converted((tools) =>
    tools.map((t) => ({
      name: t.name,
      description: t.description,
      input_schema: t.parameters as Anthropic.Tool.InputSchema,
    })),
  );
  const first: Anthropic.MessageParam[] = [{ role: "user", content: o.task }];
  return sdkAgent(o, first, {
    request: (messages, tools) => ({
      model: "m",
      system: o.system,
      messages,
      tools: wire(tools),
      max_tokens: o.maxTokens,
    }),
    send: (body, stream): Promise<Anthropic.Message> =>
      stream ? sdk.messages.stream(body).finalMessage() : sdk.messages.create(body),
    absorb(res, messages, output) {
      messages.push({ role: "assistant", content: res.content });
      const results = res.content
        .filter((b) => b.type === "tool_use")
        .map((b) => ({ type: "tool_result" as const, tool_use_id: b.id, content: output() }));
      if (results.length > 0) messages.push({ role: "user", content: results });
      return { promptTokens: res.usage.input_tokens, reply: res.content };
    },
  });
}

export const SDK_AGENTS = { chat: chatAgent, responses: responsesAgent, anthropic: anthropicAgent };
