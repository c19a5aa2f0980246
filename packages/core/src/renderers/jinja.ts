/**
 * The generic renderer: any HF chat template (tokenizer_config.json `chat_template`) run through
 * `@huggingface/jinja`, tokenized with the matching tokenizer. It is for families without a
 * hand-written renderer, so it promises less:
 * - ids equal HF `apply_chat_template(tokenize=True)` (text rendered, then encoded in one pass),
 *   except that `tojson` prints floats the JavaScript way (`1.0` → `1`, `1e-05` → `0.00001`);
 * - attribution is recovered by rendering message prefixes and diffing the texts (history a
 *   template rewrites, e.g. Qwen3 dropping a think block, is re-anchored to its message by the
 *   tail of its old text; `sampledMask` marks an assistant's text after its generation prompt up
 *   to its last stop token — a heuristic, exact for ChatML-like formats);
 * - `bridge` always returns null: with no hand-written knowledge of the format, extending the
 *   sampled tokens cannot be proven correct, so callers re-render;
 * - `parse` is plain text up to the first stop id, optionally with Qwen-style `<tool_call>` JSON.
 */
import { Template } from "@huggingface/jinja";
import type { Tokenizer } from "../tokenizer/index.ts";
import { type Segment, tokenizeSegments } from "./attribution.ts";
import { parseHermesToolCalls } from "./hermes-tool-calls.ts";
import { patchJinjaPythonSemantics } from "./jinja-python-semantics.ts";
import { contentText, messageRoles, messageToolNames } from "./messages.ts";
import { PyFloat } from "./py-json.ts";
import type {
  ParsedResponse,
  RenderedTokens,
  Renderer,
  RenderMessage,
  RenderOptions,
  RenderTool,
} from "./renderer.ts";

export interface JinjaRendererOptions {
  /** Family name reported by `name` (default "jinja"). */
  name?: string;
  /** Overrides the tokenizer's own chat template. */
  chatTemplate?: string;
  /** Extra variables for the template (e.g. `bos_token`), merged over the tokenizer config's. */
  templateVars?: Record<string, unknown>;
  /** Stop ids (default: the eos token's id). */
  stopTokenIds?: number[];
  /** "qwen3" parses `<tool_call>{json}</tool_call>` blocks by their special-token ids. */
  toolParser?: "qwen3" | null;
  /** Default for the template's `enable_thinking` (not passed when undefined). */
  enableThinking?: boolean;
}

export class JinjaRenderer implements Renderer {
  readonly name: string;
  readonly stopTokenIds: number[];
  private readonly template: Template;
  private readonly vars: Record<string, unknown>;
  private readonly toolIds: { open: number; close: number } | null;

  constructor(
    readonly tokenizer: Tokenizer,
    private readonly options: JinjaRendererOptions = {},
  ) {
    this.name = options.name ?? "jinja";
    const source = options.chatTemplate ?? tokenizer.chatTemplate;
    if (!source) throw new Error(`${this.name}: the tokenizer has no chat_template`);
    patchJinjaPythonSemantics();
    this.template = new Template(source);
    // `raise_exception` and `strftime_now` are built into @huggingface/jinja.
    this.vars = {
      bos_token: tokenizer.bosToken ?? "",
      eos_token: tokenizer.eosToken ?? "",
      ...(options.templateVars ?? {}),
    };
    const eos =
      typeof this.vars.eos_token === "string" ? tokenizer.tokenToId(this.vars.eos_token) : undefined;
    this.stopTokenIds = options.stopTokenIds ?? (eos === undefined ? [] : [eos]);
    const open = tokenizer.tokenToId("<tool_call>");
    const close = tokenizer.tokenToId("</tool_call>");
    this.toolIds =
      options.toolParser === "qwen3" && open !== undefined && close !== undefined ? { open, close } : null;
  }

  /** The template's text for these inputs (HF `apply_chat_template(tokenize=False)`). */
  renderText(messages: readonly RenderMessage[], options: RenderOptions = {}): string {
    const ctx: Record<string, unknown> = {
      ...this.vars,
      messages: toPlain(messages),
      add_generation_prompt: options.addGenerationPrompt ?? false,
    };
    if (options.tools != null) ctx.tools = toPlain(options.tools);
    const thinking = options.enableThinking ?? this.options.enableThinking;
    if (thinking !== undefined) ctx.enable_thinking = thinking;
    return this.template.render(ctx);
  }

  render(messages: RenderMessage[], options: RenderOptions = {}): RenderedTokens {
    const segments = this.attributeText(messages, options);
    return {
      ...tokenizeSegments(this.tokenizer, segments),
      messageRoles: messageRoles(messages),
      messageToolNames: messageToolNames(messages),
    };
  }

  /**
   * Renders each prefix `messages[:k+1]` and gives message k the text past the longest common
   * prefix with the previous render (a template that rewrites history gives the rewritten part
   * to the later message). Then, on the final text: an assistant's part is sampled (and body)
   * from after its generation prompt up to and including its last stop token; other messages'
   * body is where their content string appears in their part.
   */
  private attributeText(messages: readonly RenderMessage[], options: RenderOptions): Segment[] {
    const base = { tools: options.tools, enableThinking: options.enableThinking };
    const owner: number[] = [];
    const prefixes: string[] = [];
    let prev = "";
    const claim = (text: string, who: number) => {
      const common = commonPrefix(prev, text);
      // History rewritten by the new message (e.g. Qwen3 dropping a think block once an assistant
      // is no longer last): the old suffix's tail, found again in the new text, marks where the
      // earlier message's rewritten form ends; it stays with its previous owner.
      let keepUntil = common;
      if (common < prev.length) {
        const anchor = prev.slice(Math.max(common, prev.length - 16));
        const at = text.indexOf(anchor, common);
        if (at >= 0) keepUntil = at + anchor.length;
      }
      const previousOwner = owner[prev.length - 1];
      owner.length = common;
      for (let c = common; c < text.length; c++) owner.push(c < keepUntil ? previousOwner : who);
      prev = text;
    };
    for (let k = 0; k < messages.length; k++) {
      prefixes.push(prev);
      claim(this.renderText(messages.slice(0, k + 1), base), k);
    }
    const full = options.addGenerationPrompt ? this.renderText(messages, options) : prev;
    claim(full, -1);
    const sampledRanges: [number, number][] = [];
    const contentRanges: [number, number][] = [];
    for (let k = 0; k < messages.length; k++) {
      const start = owner.indexOf(k);
      if (start < 0) continue;
      const end = owner.lastIndexOf(k) + 1;
      const part = full.slice(start, end);
      if (messages[k].role === "assistant") {
        const withPrompt = this.renderText(messages.slice(0, k), { ...base, addGenerationPrompt: true });
        const opener = withPrompt.startsWith(prefixes[k]) ? withPrompt.slice(prefixes[k].length) : "";
        const from = start + commonPrefix(opener, part);
        sampledRanges.push([from, this.lastStopEnd(full.slice(0, end), from)]);
      } else {
        const body = contentText(messages[k].content);
        const at = body ? part.indexOf(body) : -1;
        if (at >= 0) contentRanges.push([start + at, start + at + body.length]);
      }
    }
    return toSegments(full, owner, sampledRanges, contentRanges);
  }

  /** End offset of the last stop-token text in `text[from:]`, or the text's end. */
  private lastStopEnd(text: string, from: number): number {
    let best = -1;
    for (const id of this.stopTokenIds) {
      const s = this.tokenizer.idToToken(id);
      if (!s) continue;
      const at = text.lastIndexOf(s);
      if (at >= from) best = Math.max(best, at + s.length);
    }
    return best >= 0 ? best : text.length;
  }

  parse(completionIds: number[], _options?: { tools?: RenderTool[] | null }): ParsedResponse {
    let end = completionIds.findIndex((id) => this.stopTokenIds.includes(id));
    if (end < 0) end = completionIds.length;
    const ids = completionIds.slice(0, end);
    const { contentIds, toolCalls } = this.toolIds
      ? parseHermesToolCalls(this.tokenizer, ids, this.toolIds.open, this.toolIds.close)
      : { contentIds: ids, toolCalls: [] };
    let text = this.tokenizer.decode(contentIds);
    let reasoning: string | null = null;
    const close = text.indexOf("</think>");
    if (close >= 0) {
      const before = text.slice(0, close);
      const open = before.indexOf("<think>");
      reasoning = open >= 0 ? before.slice(open + "<think>".length) : before;
      text = text.slice(close + "</think>".length);
    }
    return { content: text, reasoningContent: reasoning || null, toolCalls };
  }

  /** Always null: see the module comment. */
  bridge(
    _prevPromptIds?: number[],
    _prevCompletionIds?: number[],
    _newMessages?: RenderMessage[],
    _options?: { tools?: RenderTool[] | null; enableThinking?: boolean },
  ): RenderedTokens | null {
    return null;
  }

  decode(ids: number[]): string {
    return this.tokenizer.decode(ids);
  }
}

function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

function inRanges(ranges: readonly [number, number][], at: number): boolean {
  for (const [s, e] of ranges) if (at >= s && at < e) return true;
  return false;
}

/** Cuts the text wherever the owner or the sampled/content flags change. */
function toSegments(
  text: string,
  owner: readonly number[],
  sampled: readonly [number, number][],
  content: readonly [number, number][],
): Segment[] {
  const out: Segment[] = [];
  let start = 0;
  const flags = (c: number) => {
    const s = inRanges(sampled, c);
    return { messageIndex: owner[c], sampled: s, content: s || inRanges(content, c) };
  };
  let cur = text.length ? flags(0) : null;
  for (let c = 1; c <= text.length; c++) {
    const next = c < text.length ? flags(c) : null;
    if (
      cur &&
      (next === null ||
        next.messageIndex !== cur.messageIndex ||
        next.sampled !== cur.sampled ||
        next.content !== cur.content)
    ) {
      out.push({ text: text.slice(start, c), ...cur });
      start = c;
      cur = next;
    }
  }
  return out;
}

/** Plain JSON values for the template engine (PyFloat → number, bigint → number). */
function toPlain(x: unknown): unknown {
  if (x instanceof PyFloat) return x.value;
  if (typeof x === "bigint") return Number(x);
  if (Array.isArray(x)) return x.map(toPlain);
  if (x && typeof x === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(x)) out[k] = toPlain(v);
    return out;
  }
  return x;
}
