/**
 * gpt-oss (harmony): `<|start|>header<|channel|>channel<|message|>content` closed by `<|end|>`,
 * `<|return|>` (a final answer) or `<|call|>` (a tool call). The header is the role, or for a
 * tool result the tool (`functions.NAME to=assistant`). The system turn is harmony's preamble;
 * the caller's system prompt is the developer turn's instructions. Analysis (reasoning) turns
 * are not conversation messages; a commentary message to `functions.NAME` is an assistant tool
 * call, and the tools are the developer turn's `namespace functions`. A reply is a final-channel
 * message ending in `<|return|>`; a tool call is a commentary message to `functions.NAME` in
 * JSON ending in `<|call|>`.
 */
import type { Tokenizer } from "envroll/internal/tokenizer/index.ts";
import type { ChatMessage, PromptMessage, ReferenceTurn } from "../types.ts";
import { type ChatFormat, readArguments } from "./format.ts";

const TURN =
  /<\|start\|>([^<]*)(?:<\|channel\|>([^<]*))?(?:<\|constrain\|>[^<]*)?<\|message\|>([\s\S]*?)(?:(<\|end\|>|<\|return\|>|<\|call\|>)|$)/g;

interface HarmonyTurn extends PromptMessage {
  channel: string;
  /** The function a message is addressed to (`to=functions.NAME`, in the header or after the channel). */
  recipient: string | null;
}

const RECIPIENT = /\bto=functions\.([^\s<]+)/;

function harmonyTurns(text: string): HarmonyTurn[] {
  const out: HarmonyTurn[] = [];
  for (const m of text.matchAll(TURN)) {
    if (m[4] === undefined) continue;
    const header = m[1]!.trim();
    const channel = (m[2] ?? "").trim();
    const recipient = (RECIPIENT.exec(header) ?? RECIPIENT.exec(channel))?.[1] ?? null;
    out.push({ role: header.split(/\s+/)[0]!, channel, content: m[3]!, recipient });
  }
  return out;
}

/** A tool result: the template writes the output as a JSON string (`content|tojson`). */
function toolOutput(content: string): string {
  const v = readArguments(content);
  return typeof v === "string" && content.trimStart().startsWith('"') ? v : content;
}

const INSTRUCTIONS = /^# Instructions\n\n([\s\S]*?)(?:\n\n# Tools\n[\s\S]*)?$/;

function messages(text: string): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (const t of harmonyTurns(text)) {
    if (t.role === "developer") {
      const instructions = INSTRUCTIONS.exec(t.content)?.[1];
      if (instructions !== undefined) out.push({ role: "system", content: instructions });
    } else if (t.role === "user") out.push({ role: "user", content: t.content });
    else if (t.role === "assistant" && t.recipient !== null)
      out.push({
        role: "assistant",
        content: t.content,
        tool_calls: [{ name: t.recipient, arguments: readArguments(t.content) }],
      });
    else if (t.role === "assistant" && !t.channel.startsWith("analysis"))
      out.push({ role: "assistant", content: t.content });
    else if (t.role.startsWith("functions.")) out.push({ role: "tool", content: toolOutput(t.content) });
  }
  return out;
}

const FUNCTIONS = /\nnamespace functions \{\n([\s\S]*?)\n\} \/\/ namespace functions/;

/** The functions the developer message declares (`type NAME = (…) => any;` in `namespace functions`). */
function tools(text: string): string[] {
  const block = FUNCTIONS.exec(text)?.[1] ?? "";
  return [...block.matchAll(/^type ([\w.-]+) = /gm)].map((m) => m[1]!);
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
  tools,
  replyIds: (turn: ReferenceTurn, tokenizer: Tokenizer) => tokenizer.encode(replyText(turn)),
};
