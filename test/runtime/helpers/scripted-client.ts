/**
 * The model side for tests: a scripted policy (messages → assistant message) behind the real
 * Client interface. With `tokens: true` it also plays a tiny deterministic renderer so the trace
 * graph's token rules can be checked: every message renders as [role-token, ...chars, END], the
 * generation prompt is [ASSISTANT], and — like thinking-stripping chat templates — reasoning is
 * sampled but never re-rendered into history.
 */
import { setTimeout as delay } from "node:timers/promises";
import type {
  Client,
  ModelRequest,
  ModelResponse,
  TurnTokens,
} from "../../../packages/core/src/clients/client.ts";
import { TokenSequence } from "../../../packages/core/src/token-sequence.ts";
import { type AssistantMessage, contentText, type Message } from "../../../packages/core/src/types.ts";

export type Policy = (
  messages: readonly Message[],
  request: ModelRequest,
) => AssistantMessage | Promise<AssistantMessage>;

export const END = 999;
const ROLE: Record<Message["role"], number> = { system: 1000, user: 1001, assistant: 1002, tool: 1003 };

const chars = (s: string) => [...s].map((c) => c.codePointAt(0)!);

function messageBody(m: Message): string {
  if (m.role === "assistant") {
    const calls = (m.tool_calls ?? []).map((c) => `<call ${c.name} ${c.arguments}>`).join("");
    return contentText(m.content) + calls;
  }
  return contentText(m.content);
}

/** Full render with per-token message attribution (-1 = scaffold). */
export function toyRender(messages: readonly Message[]): { ids: number[]; indices: number[] } {
  const ids: number[] = [];
  const indices: number[] = [];
  messages.forEach((m, i) => {
    ids.push(ROLE[m.role]);
    indices.push(-1);
    for (const c of chars(messageBody(m))) {
      ids.push(c);
      indices.push(i);
    }
    ids.push(END);
    indices.push(i);
  });
  ids.push(ROLE.assistant);
  indices.push(-1);
  return { ids, indices };
}

export interface ScriptedOptions {
  kind?: "eval" | "train";
  tokens?: boolean;
  /** Milliseconds each call takes (abortable). */
  latencyMs?: number;
  /** Reported prompt tokens per call (default: the rendered length or 10). */
  promptTokens?: number;
  completionTokens?: number;
}

export class ScriptedClient implements Client {
  readonly kind: "eval" | "train";
  readonly requests: ModelRequest[] = [];
  private n = 0;

  constructor(
    private readonly policy: Policy,
    private readonly options: ScriptedOptions = {},
  ) {
    this.kind = options.kind ?? (options.tokens ? "train" : "eval");
  }

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    if (this.options.latencyMs) await delay(this.options.latencyMs, undefined, { signal: request.signal });
    request.signal?.throwIfAborted();
    const message = await this.policy(request.messages, request);
    let tokens: TurnTokens | null = null;
    if (this.options.tokens) {
      const r = toyRender(request.messages);
      const completionIds = [...chars(message.reasoning_content ?? ""), ...chars(messageBody(message)), END];
      tokens = {
        promptIds: TokenSequence.from(r.ids),
        completionIds,
        completionLogprobs: completionIds.map((_, i) => -0.01 * (i + 1)),
        promptMessageIndices: r.indices,
      };
    }
    return {
      id: `scripted-${this.n++}`,
      model: "scripted",
      message,
      finishReason: message.tool_calls?.length ? "tool_calls" : "stop",
      usage: {
        promptTokens: this.options.promptTokens ?? tokens?.promptIds.length ?? 10,
        completionTokens: this.options.completionTokens ?? tokens?.completionIds.length ?? 5,
      },
      tokens,
    };
  }

  async abort(): Promise<void> {}
  async close(): Promise<void> {}
}

export const say = (content: string): AssistantMessage => ({ role: "assistant", content });
export const callTool = (name: string, args: unknown, id = `call_${name}`): AssistantMessage => ({
  role: "assistant",
  content: null,
  tool_calls: [{ id, name, arguments: typeof args === "string" ? args : JSON.stringify(args) }],
});
