/**
 * The streaming side of a token turn: as sampled ids arrive, the family's own parser reads the
 * prefix (the parser that reads the finished turn, so there is one reading of a completion), and
 * only text that the finished turn will still start with is passed on. Held back:
 *
 * - anything while a tool call is being written (the parser reports an unfinished call), and
 *   content that opens like a bare JSON call when tools are offered (Llama 3.x);
 * - trailing whitespace (parsers strip it), a trailing tag being written (`<`…), and a
 *   character whose bytes have not all arrived (decoded as U+FFFD).
 *
 * Reasoning streams first, as it grows — an unclosed `<think>` (Qwen3's tag, which the parser
 * splits on only once it closes) is read as reasoning here — and is closed once content starts.
 * Tool calls are never streamed: they go out, parsed, with the finished turn. If a later prefix
 * contradicts what was sent, the rest of the turn is held for the end (the answer then reports
 * the divergence).
 */

import type { Renderer, RenderTool } from "../renderers/renderer.ts";
import { isPyWhitespace, pyLstrip } from "../text/python-str.ts";
import type { StreamDelta } from "./client.ts";

/** Parses at most this often: each parse reads the whole prefix. */
const PARSE_EVERY_MS = 15;

export class LiveContent {
  private sent = "";
  private reasoningSent = "";
  private frozen = false;
  private lastParse = -Infinity;

  constructor(
    private readonly renderer: Renderer,
    private readonly tools: RenderTool[] | null,
    private readonly promptTokens: number,
    private readonly emit: (d: StreamDelta) => void,
    private readonly parseEveryMs = PARSE_EVERY_MS,
  ) {}

  /** Every id sampled so far. */
  tokens(ids: readonly number[], id: string): void {
    if (this.frozen) return;
    const now = performance.now();
    if (now - this.lastParse < this.parseEveryMs) return;
    this.lastParse = now;
    let parsed: ReturnType<Renderer["parse"]>;
    try {
      parsed = this.renderer.parse([...ids], { tools: this.tools });
    } catch {
      // A parser may refuse a prefix it would read whole (a harmony message cut mid-header):
      // hold, and let the finished turn say what it is.
      return;
    }
    if (parsed.toolCalls.some((c) => c.status !== "ok")) return;
    const read = readPrefix(parsed.content, parsed.reasoningContent, this.tools !== null);
    if (read === null) return;
    const { reasoning, content } = read;
    // Reasoning comes first and is closed once content starts: it may only grow until then.
    if (!reasoning.startsWith(this.reasoningSent) || !content.startsWith(this.sent)) {
      this.frozen = true;
      return;
    }
    if (this.sent !== "" && reasoning !== this.reasoningSent) {
      this.frozen = true;
      return;
    }
    const delta: StreamDelta = { id, promptTokens: this.promptTokens };
    if (reasoning.length > this.reasoningSent.length)
      delta.reasoning = reasoning.slice(this.reasoningSent.length);
    if (content.length > this.sent.length) delta.content = content.slice(this.sent.length);
    this.reasoningSent = reasoning;
    this.sent = content;
    if (delta.reasoning !== undefined || delta.content !== undefined) this.emit(delta);
  }
}

/**
 * The reasoning and content of a prefix that the finished turn keeps (reasoning "" when none),
 * or null to hold everything. Content is held while the reasoning may still grow.
 */
function readPrefix(
  content: string,
  reasoning: string | null,
  toolsOffered: boolean,
): { reasoning: string; content: string } | null {
  const open = content.lastIndexOf("<think>");
  if (open >= 0 && content.indexOf("</think>", open) < 0) {
    // Qwen3-style reasoning still open: its text so far, when it is all the turn has said.
    if (reasoning !== null || stable(content.slice(0, open)) !== "") return null;
    return { reasoning: stable(pyLstrip(content.slice(open + "<think>".length))), content: "" };
  }
  if (toolsOffered && /^\s*[[{]/.test(content)) return null;
  const text = stable(content);
  // A reasoning channel with no content after it yet (harmony's analysis) may still grow.
  if (reasoning !== null && text === "") return { reasoning: stable(reasoning), content: "" };
  return { reasoning: reasoning ?? "", content: text };
}

/** Text without what may still change: trailing whitespace, a tag being written, a split character. */
function stable(text: string): string {
  let end = text.length;
  // A character still missing bytes decodes as U+FFFD.
  while (end > 0 && text.charCodeAt(end - 1) === 0xfffd) end--;
  const tag = text.lastIndexOf("<", end);
  if (tag >= 0 && /^<\/?[\w|]*$/.test(text.slice(tag, end))) end = tag;
  while (end > 0 && isPyWhitespace(text.codePointAt(end - 1)!)) end--;
  return text.slice(0, end);
}
