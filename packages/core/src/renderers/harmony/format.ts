/**
 * The harmony chat format as the gpt-oss chat template writes it, as attributed segments. Every
 * harmony message is `<|start|>{header}<|message|>{body}{<|end|>|<|call|>|<|return|>}`; the
 * header names the author, an optional recipient (` to=functions.NAME`) and the channel
 * (analysis, commentary, final). Special tokens are written as their text: the one tokenization
 * pass turns them into their ids as HF's apply_chat_template does, and since every message
 * starts and ends with a special token no BPE merge ever crosses a message boundary.
 */

import { pyJsonDumps } from "../../text/py-json.ts";
import type { SegmentList } from "../common/attribution.ts";
import { contentText } from "../common/messages.ts";
import type { RenderMessage, RenderTool } from "../renderer.ts";
import { toolNamespace } from "./tools.ts";

export const HARMONY_IDS = {
  startOfText: 199998,
  endOfText: 199999,
  return: 200002,
  constrain: 200003,
  channel: 200005,
  start: 200006,
  end: 200007,
  message: 200008,
  call: 200012,
} as const;

/** The template's generation prompt: the model writes the channel itself. */
export const GENERATION_PROMPT = "<|start|>assistant";

export interface HarmonySystemConfig {
  reasoningEffort: string;
  modelIdentity: string;
  /** `Current date:` (YYYY-MM-DD), fixed per renderer so every turn of an episode agrees. */
  currentDate: string;
}

export const DEFAULT_MODEL_IDENTITY = "You are ChatGPT, a large language model trained by OpenAI.";

/** Python truthiness of a template value (`{% if x %}`). */
export function truthy(x: unknown): boolean {
  if (x === null || x === undefined || x === false || x === 0 || x === "") return false;
  if (Array.isArray(x)) return x.length > 0;
  if (typeof x === "object") return Object.keys(x as object).length > 0;
  return true;
}

/**
 * The system message (template-made, attributed to no caller message) and, when the first
 * message is a system or developer message or there are tools, the developer message with its
 * `# Instructions` and `# Tools`. Returns whether messages[0] was consumed as the instructions.
 */
export function pushPrefix(
  out: SegmentList,
  messages: readonly RenderMessage[],
  tools: readonly RenderTool[] | null | undefined,
  cfg: HarmonySystemConfig,
): boolean {
  const hasTools = truthy(tools);
  const system =
    `<|start|>system<|message|>${cfg.modelIdentity}\nKnowledge cutoff: 2024-06\n` +
    `Current date: ${cfg.currentDate}\n\nReasoning: ${cfg.reasoningEffort}\n\n` +
    "# Valid channels: analysis, commentary, final. Channel must be included for every message." +
    (hasTools ? "\nCalls to these tools must go to the commentary channel: 'functions'." : "") +
    "<|end|>";
  out.push(system, -1, false, false);
  const first = messages[0];
  const consumed = first !== undefined && (first.role === "system" || first.role === "developer");
  const instructions = consumed ? contentText(first.content) : "";
  if (!instructions && !hasTools) return consumed;
  const idx = consumed ? 0 : -1;
  out.push("<|start|>developer<|message|>", idx, false, false);
  if (instructions) {
    out.push("# Instructions\n\n", idx, false, false);
    out.push(instructions, idx, false, true);
    out.push("\n\n", idx, false, false);
  }
  if (hasTools) out.push(`# Tools\n\n${toolNamespace(tools as RenderTool[])}`, idx, false, false);
  out.push("<|end|>", idx, false, false);
  return consumed;
}

export function pushUser(out: SegmentList, msg: RenderMessage, idx: number): void {
  out.push("<|start|>user<|message|>", idx, false, false);
  out.push(contentText(msg.content), idx, false, true);
  out.push("<|end|>", idx, false, false);
}

/** A tool result: authored by `functions.NAME`, addressed to the assistant; the body is `tojson`ed. */
export function pushToolResult(out: SegmentList, msg: RenderMessage, name: string, idx: number): void {
  out.push(`<|start|>functions.${name} to=assistant<|channel|>commentary<|message|>`, idx, false, false);
  out.push(pyJsonDumps(msg.content ?? null), idx, false, true);
  out.push("<|end|>", idx, false, false);
}

/** A tool call as the caller gave it: name, arguments text, content type. */
export interface HarmonyCall {
  name: string;
  argumentsText: string;
  contentType: string;
}

function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

/**
 * The calls of an assistant message (`function` wrapper or flat). Arguments given as a string
 * are the JSON text the model wrote and are kept verbatim; an object is written as the template
 * writes it (`tojson`, Python `json.dumps`).
 */
export function toolCallsOf(msg: RenderMessage, idx: number): HarmonyCall[] {
  if (!Array.isArray(msg.tool_calls)) return [];
  return msg.tool_calls.map((call, k) => {
    const tc = isRecord(call) ? call : {};
    const fn = isRecord(tc.function) ? tc.function : tc;
    if (typeof fn.name !== "string")
      throw new Error(`gpt-oss render: messages[${idx}].tool_calls[${k}] has no function name`);
    const args = fn.arguments;
    return {
      name: fn.name,
      argumentsText: typeof args === "string" ? args : pyJsonDumps(args ?? {}),
      contentType: typeof fn.content_type === "string" ? fn.content_type : "json",
    };
  });
}

/** The reasoning of an assistant message: the template's `thinking`, or envroll's `reasoning_content`. */
export function thinkingOf(msg: RenderMessage): string | undefined {
  if (typeof msg.thinking === "string") return msg.thinking;
  if (typeof msg.reasoning_content === "string") return msg.reasoning_content;
  return undefined;
}

const CHANNEL_TAGS = ["<|channel|>analysis<|message|>", "<|channel|>final<|message|>"];

/** The template refuses harmony markup pasted into content or thinking. */
export function assertNoChannelTags(text: string, field: string, idx: number): void {
  if (CHANNEL_TAGS.some((tag) => text.includes(tag)))
    throw new Error(
      `gpt-oss render: messages[${idx}].${field} contains <|channel|> tags; pass reasoning in ` +
        "reasoning_content (or thinking) and the final answer in content",
    );
}

/**
 * One assistant message: the opening `<|start|>assistant` is scaffold (the generation prompt
 * writes it); everything after it is what the model samples — the channel headers, bodies,
 * later `<|start|>assistant` openers of the same turn and the closing token.
 */
export function pushAssistant(
  out: SegmentList,
  idx: number,
  parts: {
    analysis: string | null;
    preamble: string | null;
    calls: HarmonyCall[];
    final: string | null;
    close: string;
  },
): void {
  out.push("<|start|>assistant", idx, false, false);
  let body = "";
  let first = true;
  // Each harmony message after the first of the turn opens with its own `<|start|>assistant`.
  const open = () => {
    if (!first) body += "<|start|>assistant";
    first = false;
  };
  if (parts.analysis !== null) {
    open();
    body += `<|channel|>analysis<|message|>${parts.analysis}<|end|>`;
  }
  if (parts.preamble !== null) {
    open();
    body += `<|channel|>commentary<|message|>${parts.preamble}<|end|>`;
  }
  for (const call of parts.calls) {
    open();
    body += ` to=functions.${call.name}<|channel|>commentary ${call.contentType}<|message|>${call.argumentsText}<|call|>`;
  }
  if (parts.final !== null) {
    open();
    body += `<|channel|>final<|message|>${parts.final}${parts.close}`;
  }
  out.push(body, idx, true, true);
}
