/**
 * Attribution by prefix diffs, for templates the one-pass markers cannot describe: render each
 * prefix `messages[:k+1]` and give message k the text past the longest common prefix with the
 * previous render. Quadratic in the conversation (every prefix is rendered), so it is only the
 * fallback. History a template rewrites when a message is added (e.g. Qwen3 dropping a think
 * block) is re-anchored to its earlier owner by the tail of its old text. A prefix the template
 * cannot render alone gives its text to the next message.
 */
import type { RenderMessage, RenderOptions } from "../renderer.ts";

export interface PrefixOwned {
  text: string;
  owner: Int32Array;
  loopEnd: number;
}

export function prefixDiffOwners(
  renderText: (messages: readonly RenderMessage[], options: RenderOptions) => string,
  messages: readonly RenderMessage[],
  options: RenderOptions,
): PrefixOwned {
  const base = { tools: options.tools, enableThinking: options.enableThinking };
  const owner: number[] = [];
  let prev = "";
  const claim = (text: string, who: number) => {
    let common = 0;
    const n = Math.min(prev.length, text.length);
    while (common < n && prev.charCodeAt(common) === text.charCodeAt(common)) common++;
    let keepUntil = common;
    if (common < prev.length) {
      const anchor = prev.slice(Math.max(common, prev.length - 16));
      const at = text.indexOf(anchor, common);
      if (at >= 0) keepUntil = at + anchor.length;
    }
    const previousOwner = owner[prev.length - 1] ?? -1;
    owner.length = common;
    for (let c = common; c < text.length; c++) owner.push(c < keepUntil ? previousOwner : who);
    prev = text;
  };
  for (let k = 0; k < messages.length; k++) {
    let text: string;
    try {
      text = renderText(messages.slice(0, k + 1), base);
    } catch (e) {
      // A prefix the template refuses (Llama 3.1's with tools and only a system message): its
      // text is claimed by the next message that renders. The whole conversation must render.
      if (k === messages.length - 1) throw e;
      continue;
    }
    claim(text, k);
  }
  const loopEnd = prev.length;
  const full = options.addGenerationPrompt ? renderText(messages, options) : prev;
  claim(full, -1);
  return { text: full, owner: Int32Array.from(owner), loopEnd: Math.min(loopEnd, full.length) };
}
