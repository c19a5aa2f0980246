/**
 * Qwen3's thinking rules: which assistant turns carry a `<think>` block in history, and how
 * reasoning embedded in content is split out.
 */
import { pyLstrip, pyRstrip } from "../../text/python-str.ts";
import type { RenderMessage } from "../renderer.ts";

/**
 * Index of the last "real" user query: the last user message whose content is not a wrapped
 * `<tool_response>…</tool_response>`. Assistant turns after it keep their thinking. With no such
 * message the template uses the last index.
 */
export function lastQueryIndex(messages: readonly RenderMessage[], contents: readonly string[]): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]!.role !== "user" || typeof messages[i]!.content !== "string") continue;
    const c = contents[i]!;
    if (!(c.startsWith("<tool_response>") && c.endsWith("</tool_response>"))) return i;
  }
  return messages.length - 1;
}

/**
 * Reasoning and visible content of an assistant message, as the HF template computes them: an
 * explicit `reasoning_content` string wins; otherwise content containing `</think>` is split —
 * reasoning is the text before the FIRST `</think>` (after any `<think>`), content the text after
 * the LAST one. (The Python renderer splits once — `splitOnce` — which envroll only mimics when
 * a renderer-only config flag asks for the Python renderer's output.)
 */
export function splitReasoning(
  msg: RenderMessage,
  content: string,
  splitOnce = false,
): { reasoning: string; content: string } {
  if (typeof msg.reasoning_content === "string") return { reasoning: msg.reasoning_content, content };
  if (!content.includes("</think>")) return { reasoning: "", content };
  const parts = content.split("</think>");
  if (splitOnce) {
    // The Python renderer's variant: content is everything after the first `</think>`.
    const at = content.indexOf("</think>");
    parts.splice(0, parts.length, content.slice(0, at), content.slice(at + "</think>".length));
  }
  const before = pyRstrip(parts[0]!, "\n").split("<think>");
  return {
    reasoning: pyLstrip(before[before.length - 1]!, "\n"),
    content: pyLstrip(parts[parts.length - 1]!, "\n"),
  };
}

export interface ThinkingConfig {
  preserveAllThinking: boolean;
  preserveThinkingBetweenToolCalls: boolean;
}

/**
 * Renderer-only overrides that keep historical reasoning the template would drop:
 * `preserveAllThinking` keeps all; `preserveThinkingBetweenToolCalls` keeps it for assistants
 * after the most recent user message, but only once that tool cycle holds a tool response.
 */
export function preservePastThinking(
  messages: readonly RenderMessage[],
  index: number,
  cfg: ThinkingConfig,
): boolean {
  if (cfg.preserveAllThinking) return true;
  if (!cfg.preserveThinkingBetweenToolCalls) return false;
  let lastUser = -1;
  for (let j = messages.length - 1; j >= 0; j--) {
    if (messages[j]!.role === "user") {
      lastUser = j;
      break;
    }
  }
  if (index <= lastUser) return false;
  for (let j = lastUser + 1; j < messages.length; j++) if (messages[j]!.role === "tool") return true;
  return false;
}
