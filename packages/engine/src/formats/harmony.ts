/**
 * gpt-oss (harmony): `<|start|>header<|channel|>channel<|message|>content` closed by `<|end|>`,
 * `<|return|>` (a final answer) or `<|call|>` (a tool call). The header is the role, or for a
 * tool result the tool (`functions.NAME to=assistant`). The system turn is harmony's preamble;
 * the caller's system prompt is the developer turn's instructions. Analysis (reasoning) turns
 * are not conversation messages. A reply is a final-channel message ending in `<|return|>`; a
 * tool call is a commentary message to `functions.NAME` in JSON ending in `<|call|>`.
 */
import type { Tokenizer } from "envroll/internal/tokenizer/index.ts";
import type { ChatMessage, PromptMessage, ReferenceTurn } from "../types.ts";
import type { ChatFormat } from "./format.ts";

const TURN =
  /<\|start\|>([^<]*)(?:<\|channel\|>([^<]*))?(?:<\|constrain\|>[^<]*)?<\|message\|>([\s\S]*?)(?:(<\|end\|>|<\|return\|>|<\|call\|>)|$)/g;

interface HarmonyTurn extends PromptMessage {
  channel: string;
}

function harmonyTurns(text: string): HarmonyTurn[] {
  const out: HarmonyTurn[] = [];
  for (const m of text.matchAll(TURN)) {
    if (m[4] === undefined) continue;
    out.push({ role: m[1]!.trim().split(/\s+/)[0]!, channel: (m[2] ?? "").trim(), content: m[3]! });
  }
  return out;
}

const INSTRUCTIONS = /^# Instructions\n\n([\s\S]*?)(?:\n\n# Tools\n[\s\S]*)?$/;

function messages(text: string): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (const t of harmonyTurns(text)) {
    if (t.role === "developer") {
      const instructions = INSTRUCTIONS.exec(t.content)?.[1];
      if (instructions !== undefined) out.push({ role: "system", content: instructions });
    } else if (t.role === "user") out.push({ role: "user", content: t.content });
    else if (t.role === "assistant" && !t.channel.startsWith("analysis"))
      out.push({ role: "assistant", content: t.content });
    else if (t.role.startsWith("functions.")) out.push({ role: "tool", content: t.content });
  }
  return out;
}

function replyText(turn: ReferenceTurn): string {
  if (turn.tool_calls.length === 0) return `<|channel|>final<|message|>${turn.content}<|return|>`;
  // One call per sampled turn (the model stops at <|call|>); text before it is its reasoning.
  const call = turn.tool_calls[0]!;
  const preface = turn.content
    ? `<|channel|>analysis<|message|>${turn.content}<|end|><|start|>assistant`
    : "";
  return `${preface}<|channel|>commentary to=functions.${call.name} <|constrain|>json<|message|>${JSON.stringify(call.arguments ?? {})}<|call|>`;
}

export const harmonyFormat: ChatFormat = {
  family: "gpt-oss",
  turnStartId: 200006,
  turns: harmonyTurns,
  messages,
  replyIds: (turn: ReferenceTurn, tokenizer: Tokenizer) => tokenizer.encode(replyText(turn)),
};
