/**
 * The Qwen3 chat format as segments: each function appends one part of the template's output,
 * tagged for attribution. Special tokens are written as their text; the single tokenization pass
 * turns them into their ids exactly as HF's `apply_chat_template(tokenize=True)` does.
 */

import { pyJsonDumps } from "../../text/py-json.ts";
import { pyLstrip, pyStrip } from "../../text/python-str.ts";
import type { SegmentList } from "../common/attribution.ts";
import { contentText, toolCallText } from "../common/messages.ts";
import type { RenderMessage, RenderTool } from "../renderer.ts";

export const QWEN3_IDS = {
  endOfText: 151643,
  imStart: 151644,
  imEnd: 151645,
  toolCall: 151657,
  toolCallEnd: 151658,
  toolResponse: 151665,
  toolResponseEnd: 151666,
  think: 151667,
  thinkEnd: 151668,
} as const;

const TOOLS_HEADER =
  "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n" +
  "You are provided with function signatures within <tools></tools> XML tags:\n<tools>";
const TOOLS_FOOTER =
  "\n</tools>\n\nFor each function call, return a json object with function name and arguments " +
  'within <tool_call></tool_call> XML tags:\n<tool_call>\n{"name": <function-name>, "arguments": ' +
  "<args-json-object>}\n</tool_call>";

export const EMPTY_THINK = "<think>\n\n</think>\n\n";

/**
 * The system block with tools. Everything but the system message's own content is scaffold,
 * attributed to message 0 when it is a system message, else -1.
 */
export function pushToolsSystem(
  out: SegmentList,
  tools: readonly RenderTool[],
  system: RenderMessage | null,
): void {
  const idx = system ? 0 : -1;
  out.push("<|im_start|>system\n", idx, false, false);
  if (system) {
    out.push(contentText(system.content), idx, false, true);
    out.push("\n\n", idx, false, false);
  }
  let block = TOOLS_HEADER;
  for (const tool of tools) block += "\n" + pyJsonDumps(tool);
  out.push(block + TOOLS_FOOTER + "<|im_end|>\n", idx, false, false);
}

/** `<|im_start|>{role}\n{content}<|im_end|>\n` for user and system turns. */
export function pushPlainTurn(out: SegmentList, role: string, content: string, idx: number): void {
  out.push(`<|im_start|>${role}\n`, idx, false, false);
  out.push(content, idx, false, true);
  out.push("<|im_end|>\n", idx, false, false);
}

/** One tool result; a run of tool messages shares one `<|im_start|>user … <|im_end|>` wrap. */
export function pushToolResponse(
  out: SegmentList,
  content: string,
  idx: number,
  prevIsTool: boolean,
  nextIsTool: boolean,
): void {
  out.push(prevIsTool ? "\n<tool_response>\n" : "<|im_start|>user\n<tool_response>\n", idx, false, false);
  out.push(content, idx, false, true);
  out.push(nextIsTool ? "\n</tool_response>" : "\n</tool_response><|im_end|>\n", idx, false, false);
}

/**
 * An assistant turn. The `<|im_start|>assistant\n` opener and the `\n` after `<|im_end|>` are
 * scaffold; everything between (think block, content, tool calls) and `<|im_end|>` itself is
 * what the model samples, and counts as body. HF tokenizes opener and body in one pass;
 * `separateOpener` reproduces the Python renderer, which encodes them apart (they differ only
 * when the body starts with a newline).
 */
export function pushAssistant(
  out: SegmentList,
  msg: RenderMessage,
  idx: number,
  reasoning: string,
  content: string,
  withThink: boolean,
  separateOpener = false,
): void {
  let body = withThink
    ? `<think>\n${pyStrip(reasoning, "\n")}\n</think>\n\n${pyLstrip(content, "\n")}`
    : content;
  const calls = Array.isArray(msg.tool_calls) ? msg.tool_calls : [];
  calls.forEach((call, k) => {
    if (k > 0 || content) body += "\n";
    const { name, argumentsText } = toolCallText(call);
    body += `<tool_call>\n{"name": "${name}", "arguments": ${argumentsText}}\n</tool_call>`;
  });
  out.push("<|im_start|>assistant\n", idx, false, false);
  out.push(body + "<|im_end|>", idx, true, true, separateOpener);
  out.push("\n", idx, false, false);
}

/**
 * Inputs on which HF's Qwen3 template raises (a user/system/assistant content that is not a
 * string — `null`, missing or parts — or a tool call without `arguments`). There the Python
 * renderer is the only reference, so the caller renders exactly as it does.
 */
export function hfTemplateRaises(messages: readonly RenderMessage[]): boolean {
  for (const m of messages) {
    if (m.role === "tool") continue;
    if (m.role !== "user" && m.role !== "system" && m.role !== "assistant") continue;
    if (typeof m.content !== "string") return true;
    if (m.role === "assistant" && Array.isArray(m.tool_calls)) {
      for (const call of m.tool_calls) {
        const tc = (call ?? {}) as Record<string, unknown>;
        const fn = (tc.function && typeof tc.function === "object" ? tc.function : tc) as Record<
          string,
          unknown
        >;
        if (!("arguments" in fn)) return true;
      }
    }
  }
  return false;
}

/** The generation prompt; with thinking disabled it pre-fills an empty think block. */
export function pushGenerationPrompt(out: SegmentList, enableThinking: boolean): void {
  out.push(
    enableThinking ? "<|im_start|>assistant\n" : `<|im_start|>assistant\n${EMPTY_THINK}`,
    -1,
    false,
    false,
  );
}
