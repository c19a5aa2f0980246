/**
 * The streaming side of a token turn: as sampled ids arrive, the family's own parser reads the
 * prefix (the parser that reads the finished turn, so there is one reading of a completion), and
 * only text that the finished turn will still start with is passed on. Held back:
 *
 * - anything while a tool call is being written (the parser reports an unfinished call), and
 *   content that opens like a bare JSON call when tools are offered (Llama 3.x);
 * - an unclosed `<think>` (the reasoning tag of every shipped thinking family): that text becomes
 *   reasoning once the tag closes;
 * - trailing whitespace (parsers strip it), a trailing tag being written (`<`…), and a
 *   character whose bytes have not all arrived (decoded as U+FFFD).
 *
 * Reasoning is sent whole, once, when content starts after it. Tool calls are never streamed:
 * they go out, parsed, with the finished turn. If a later prefix contradicts what was sent, the
 * rest of the turn is held for the end (the answer then reports the divergence).
 */

import type { Renderer, RenderTool } from "../renderers/renderer.ts";
import { isPyWhitespace } from "../text/python-str.ts";
import type { StreamDelta } from "./client.ts";

/** Parses at most this often: each parse reads the whole prefix. */
const PARSE_EVERY_MS = 15;

export class LiveContent {
  private sent = "";
  private reasoningSent: string | null = null;
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
    const content = stableContent(parsed.content, this.tools !== null);
    if (content === null) return;
    const reasoning = parsed.reasoningContent;
    if (reasoning !== this.reasoningSent) {
      // Reasoning goes out whole, before content; a change after it went out is a contradiction.
      if (this.reasoningSent !== null || this.sent !== "") {
        this.frozen = true;
        return;
      }
      if (content === "") return;
    }
    if (!content.startsWith(this.sent)) {
      this.frozen = true;
      return;
    }
    const delta: StreamDelta = { id, promptTokens: this.promptTokens };
    if (reasoning !== null && this.reasoningSent === null) {
      this.reasoningSent = reasoning;
      delta.reasoning = reasoning;
    }
    if (content.length > this.sent.length) delta.content = content.slice(this.sent.length);
    this.sent = content;
    if (delta.reasoning !== undefined || delta.content !== undefined) this.emit(delta);
  }
}

/** The part of a prefix's content the finished turn keeps, or null to hold all of it. */
function stableContent(content: string, toolsOffered: boolean): string | null {
  const open = content.lastIndexOf("<think>");
  if (open >= 0 && content.indexOf("</think>", open) < 0) return null;
  if (toolsOffered && /^\s*[[{]/.test(content)) return null;
  let end = content.length;
  // A character still missing bytes decodes as U+FFFD.
  while (end > 0 && content.charCodeAt(end - 1) === 0xfffd) end--;
  const tag = content.lastIndexOf("<", end);
  if (tag >= 0 && /^<\/?[\w|]*$/.test(content.slice(tag, end))) end = tag;
  while (end > 0 && isPyWhitespace(content.codePointAt(end - 1)!)) end--;
  return content.slice(0, end);
}
