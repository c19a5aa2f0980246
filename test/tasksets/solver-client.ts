/**
 * A Client that answers with the built-in engine's reference solvers: messages are rendered in
 * Qwen3 chat text (the shape the engine decodes), the solver's reply is parsed back into an
 * assistant message with tool calls. This drives every built-in taskset end to end through the
 * real Environment without a model.
 */
import type { Client, ModelRequest, ModelResponse } from "../../packages/core/src/clients/client.ts";
import { hashString, mulberry32 } from "../../packages/core/src/random.ts";
import { builtinReferenceBook, type ReferenceBook } from "../../packages/core/src/references.ts";
import {
  type AssistantMessage,
  contentText,
  type Message,
  type Tool,
} from "../../packages/core/src/types.ts";
import { qwen3Format } from "../../packages/engine/src/formats/index.ts";
import { chatMessages, formatReferenceTurn } from "../../packages/engine/src/index.ts";
import { findSolver } from "../../packages/engine/src/policies/reference/index.ts";

const book: ReferenceBook = await builtinReferenceBook();

export function qwenText(messages: readonly Message[], tools: readonly Tool[] = []): string {
  let out = "";
  if (tools.length > 0) {
    // The part of Qwen3's tools block the solvers read: one function JSON per line in <tools>.
    const lines = tools.map((t) =>
      JSON.stringify({ type: "function", function: { name: t.name } }).replace(/":/g, '": '),
    );
    out += `<|im_start|>system\n<tools>\n${lines.join("\n")}\n</tools><|im_end|>\n`;
  }
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role === "tool") {
      const parts: string[] = [];
      for (; i < messages.length && messages[i]!.role === "tool"; i++)
        parts.push(`<tool_response>\n${contentText(messages[i]!.content)}\n</tool_response>`);
      i--;
      out += `<|im_start|>user\n${parts.join("\n")}<|im_end|>\n`;
      continue;
    }
    let body = contentText(m.content);
    if (m.role === "assistant")
      for (const c of m.tool_calls ?? [])
        body += `\n<tool_call>\n{"name": "${c.name}", "arguments": ${c.arguments}}\n</tool_call>`;
    out += `<|im_start|>${m.role}\n${body}<|im_end|>\n`;
  }
  return `${out}<|im_start|>assistant\n`;
}

export function parseReply(text: string): AssistantMessage {
  const calls = [...text.matchAll(/<tool_call>\s*([\s\S]*?)\s*<\/tool_call>/g)].map((m, i) => {
    const j = JSON.parse(m[1]!) as { name: string; arguments: unknown };
    return { id: `call_${i}`, name: j.name, arguments: JSON.stringify(j.arguments) };
  });
  const cut = text.indexOf("<tool_call>");
  const content = (cut >= 0 ? text.slice(0, cut) : text).trim();
  return calls.length > 0
    ? { role: "assistant", content, tool_calls: calls }
    : { role: "assistant", content };
}

export class SolverClient implements Client {
  readonly kind = "eval" as const;
  readonly prompts: string[] = [];
  private n = 0;
  /** How often each prompt text was asked: the noise draw depends on the text and this count. */
  private readonly asked = new Map<string, number>();
  constructor(private readonly seed = 1) {}

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    const text = qwenText(request.messages, request.tools);
    this.prompts.push(text);
    // As the engine's reference policy: the tasksets' reference solutions, then its own solvers.
    // The draw depends on the prompt and how many times it was asked, not on the global call
    // order: concurrent rollouts arrive in any order, and the multiset of outcomes per prompt
    // (so every assertion about "some passed, some failed") stays the same from run to run.
    const k = this.asked.get(text) ?? 0;
    this.asked.set(text, k + 1);
    const rng = mulberry32(hashString(text, this.seed + k));
    const input = { messages: chatMessages(text), tools: qwen3Format.tools!(text) };
    const turn = book.answer(input.messages, rng) ?? findSolver(input)?.solve(input, rng);
    if (!turn) throw new Error(`no reference solution answers:\n${text}`);
    const message = parseReply(formatReferenceTurn(turn));
    return {
      id: `solver-${this.n++}`,
      model: "reference",
      message,
      finishReason: message.tool_calls ? "tool_calls" : "stop",
      usage: { promptTokens: 10, completionTokens: 5 },
      tokens: null,
    };
  }
  async abort(): Promise<void> {}
  async close(): Promise<void> {}
}
