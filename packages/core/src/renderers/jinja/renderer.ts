/**
 * The generic renderer: any HF chat template (tokenizer_config.json `chat_template` or a
 * checkpoint's chat_template.jinja) parsed by `@huggingface/jinja` and run by envroll's compiled
 * evaluator (`template/`; the library's interpreter where the template uses what the compiler
 * lacks, see `evaluator.ts`), tokenized with the matching tokenizer. It is for families
 * without a hand-written renderer, so it promises less:
 * - ids equal HF `apply_chat_template(tokenize=True)` (text rendered, then encoded in one pass,
 *   strings and values printed as Python prints them), except that an integral float in the
 *   inputs (`1.0`) reaches the template as the integer it equals in JavaScript;
 * - attribution comes from one instrumented render (`attribution.ts`; prefix diffs for
 *   templates it cannot describe); `sampledMask` marks an assistant's text after the opener the
 *   generation prompt writes up to its last stop token — exact for formats where the
 *   generation prompt is the assistant opener (ChatML, Llama 3, Gemma, DeepSeek);
 * - `bridge` extends the sampled tokens only where it can check, on the spot, that the template
 *   renders the history before the sampled turn unchanged (`bridge.ts`); otherwise it
 *   declines and says why;
 * - `parse` is plain text up to the first stop id, with the family's tool calls where a tool
 *   parser is set (Qwen-style `<tool_call>` JSON, DeepSeek-V3's call tokens, Llama 3.x JSON);
 * - a request with tools is refused when the template neither reads `tools` nor renders tool
 *   calls (Gemma 3's, the minimal Llama 3 one): the tools would be silently dropped.
 */
import { Template } from "@huggingface/jinja";
import { UnsupportedError } from "../../errors.ts";
import type { Tokenizer } from "../../tokenizer/index.ts";
import type { Segment } from "../common/attribution.ts";
import { assertWellFormed, contentText, messageRoles, messageToolNames } from "../common/messages.ts";
import { parseDeepSeekToolCalls } from "../deepseek/tool-calls.ts";
import { parseLlama3ToolCalls } from "../llama/tool-calls.ts";
import { parseHermesToolCalls } from "../qwen3/hermes-tool-calls.ts";
import type * as R from "../renderer.ts";
import { holdsMarker, MARKER_CHARS, type MarkedText, ownersFromMarks, renderMarked } from "./attribution.ts";
import { type BridgeContext, jinjaBridge } from "./bridge.ts";
import { TemplateEvaluator } from "./evaluator.ts";
import { definedNames, readsVariable } from "./loop-shape.ts";
import { indexIn, messagesVariable, messageValues, patchEnvironment } from "./message-values.ts";
import { toPlain, toTemplateMessages } from "./plain.ts";
import { prefixDiffOwners } from "./prefix-owners.ts";
import { patchJinjaPythonSemantics } from "./python-semantics.ts";
import { type Spans, tokenizeOwned, toSegments } from "./segments.ts";
import { PromptRecords, type RenderState } from "./sessions.ts";

export interface JinjaRendererOptions {
  /** Family name reported by `name` (default "jinja"). */
  name?: string;
  /** The verified family (`TemplateIdentity.family`), when `name` is not it. */
  family?: string;
  /** Overrides the tokenizer's own chat template. */
  chatTemplate?: string;
  /** Extra variables for the template (e.g. `bos_token`), merged over the tokenizer config's. */
  templateVars?: Record<string, unknown>;
  /** Stop ids (default: the eos token's id and the token the template closes an assistant turn with). */
  stopTokenIds?: number[];
  /**
   * "qwen3" parses `<tool_call>{json}</tool_call>` blocks, "deepseek-v3" DeepSeek's tool-call
   * section, both by their special-token ids; "llama3" Llama 3.x JSON calls (bare, or after
   * `<|python_tag|>`), and hands the template tool-call arguments as objects (its `tojson`
   * and `items` expect a dict, as HF's callers pass it).
   */
  toolParser?: ToolParserName | null;
  /** Default for the template's `enable_thinking` (not passed when undefined). */
  enableThinking?: boolean;
}

export type ToolParserName = "qwen3" | "deepseek-v3" | "llama3";

/** Text of one render with each character's owner (message index or -1). */
export interface OwnedText {
  text: string;
  owner: Int32Array;
  /** Where the generation prompt starts (text.length when there is none). */
  loopEnd: number;
}

export class JinjaRenderer implements R.Renderer {
  readonly name: string;
  readonly family: string;
  readonly stopTokenIds: number[];
  private readonly template: Template;
  private readonly vars: Record<string, unknown>;
  private readonly toolIds: { open: number; close: number } | null;
  /** False when the template neither reads `tools` nor renders tool calls (tools are refused). */
  readonly rendersTools: boolean;
  private readonly plain: (x: unknown) => unknown;
  private opener: string | null = null;
  private readonly defined: ReadonlySet<string>;
  /** The compiled evaluator, or the library where the template uses what it lacks. */
  readonly evaluator: TemplateEvaluator;
  /** False when the template or its variables hold the attribution markers (never marked). */
  private readonly markable: boolean;
  /** The prompts this renderer produced (text and loop records), for the next turn's bridge. */
  readonly prompts = new PromptRecords();

  constructor(
    readonly tokenizer: Tokenizer,
    private readonly options: JinjaRendererOptions = {},
  ) {
    this.name = options.name ?? "jinja";
    this.family = options.family ?? this.name;
    const source = options.chatTemplate ?? tokenizer.chatTemplate;
    if (!source) throw new Error(`${this.name}: the tokenizer has no chat_template`);
    patchJinjaPythonSemantics();
    // Integral floats in the input reach the library's interpreter as floats (float-values.ts).
    patchEnvironment();
    this.template = new Template(source);
    this.defined = definedNames(this.template.parsed);
    // DeepSeek-V3's template renders calls and results but no declarations: tools are allowed.
    this.rendersTools = readsVariable(this.template.parsed, "tools") || source.includes("tool_calls");
    const objectArguments = options.toolParser === "llama3";
    this.plain = (x) => toTemplateMessages(x, objectArguments);
    this.evaluator = new TemplateEvaluator(this.template, this.defined);
    this.markable =
      !MARKER_CHARS.test(source) && !MARKER_CHARS.test(JSON.stringify(options.templateVars ?? {}));
    // `raise_exception` and `strftime_now` are built into @huggingface/jinja.
    this.vars = {
      bos_token: tokenizer.bosToken ?? "",
      eos_token: tokenizer.eosToken ?? "",
      ...(options.templateVars ?? {}),
    };
    this.stopTokenIds = options.stopTokenIds ?? this.defaultStops();
    // Llama 3.x ends a `<|python_tag|>` call with <|eom_id|>, not the turn's <|eot_id|>.
    const eom = tokenizer.tokenToId("<|eom_id|>");
    if (!options.stopTokenIds && options.toolParser === "llama3" && eom !== undefined)
      this.stopTokenIds.push(eom);
    const open = tokenizer.tokenToId("<tool_call>");
    const close = tokenizer.tokenToId("</tool_call>");
    this.toolIds =
      options.toolParser === "qwen3" && open !== undefined && close !== undefined ? { open, close } : null;
  }

  /** The eos id plus the added token the template writes right after an assistant's content. */
  private defaultStops(): number[] {
    const out: number[] = [];
    const eos =
      typeof this.vars.eos_token === "string" ? this.tokenizer.tokenToId(this.vars.eos_token) : undefined;
    if (eos !== undefined) out.push(eos);
    const close = this.assistantClose();
    if (close !== undefined && !out.includes(close)) out.push(close);
    return out;
  }

  private assistantClose(): number | undefined {
    const body = "\u2062envroll-probe\u2062";
    let text: string;
    try {
      text = this.renderText([
        { role: "user", content: "x" },
        { role: "assistant", content: body },
      ]);
    } catch {
      return undefined;
    }
    const at = text.indexOf(body);
    if (at < 0) return undefined;
    const ids = this.tokenizer.encode(text.slice(at + body.length));
    return ids.length > 0 && this.tokenizer.isAddedToken(ids[0]!) ? ids[0] : undefined;
  }

  /** The template's context for these inputs (`messagesValue`: the messages, prebuilt). */
  context(
    messages: readonly R.RenderMessage[],
    options: R.RenderOptions,
    messagesValue?: unknown,
  ): Record<string, unknown> {
    const ctx: Record<string, unknown> = {
      ...this.vars,
      messages: messagesValue ?? this.plain(messages),
      add_generation_prompt: options.addGenerationPrompt ?? false,
    };
    if (options.tools != null) ctx.tools = toPlain(options.tools);
    const thinking = options.enableThinking ?? this.options.enableThinking;
    if (thinking !== undefined) ctx.enable_thinking = thinking;
    return ctx;
  }

  /** The template's text for these inputs (HF `apply_chat_template(tokenize=False)`). */
  renderText(messages: readonly R.RenderMessage[], options: R.RenderOptions = {}): string {
    this.refuseUnrenderedTools(options);
    return this.evaluator.text(this.context(messages, options));
  }

  /** Tools the template would silently drop are an error, not a prompt without them. */
  refuseUnrenderedTools(options: R.RenderOptions): void {
    if (options.tools && options.tools.length > 0 && !this.rendersTools)
      throw new UnsupportedError(
        `${this.name}: the chat template has no tool support (it never reads \`tools\` or renders tool calls); ` +
          "a request with tools is refused (use a checkpoint whose template renders tools)",
      );
  }

  /**
   * One render with per-character owners (markers, or prefix diffs for irregular templates);
   * `loops` holds the render's loop records when `record` is set.
   */
  renderOwned(
    messages: readonly R.RenderMessage[],
    options: R.RenderOptions,
    record = false,
  ): OwnedText & { state?: RenderState | null } {
    const marked = this.renderMarkedText(messages, options, record ? null : undefined);
    if (marked)
      return {
        text: marked.text,
        owner: ownersFromMarks(marked),
        loopEnd: marked.loopEnd,
        state: marked.state,
      };
    return prefixDiffOwners((msgs, o) => this.renderText(msgs, o), messages, options);
  }

  /**
   * The marked render (see `attribution.ts`). With `previous` (what an earlier render of
   * a prefix of this conversation left, or null to only record) the messages' values are reused
   * where unchanged and the message loops run incrementally (`loop-memo.ts`); `state` is
   * then what this render leaves for the next.
   */
  renderMarkedText(
    messages: readonly R.RenderMessage[],
    options: R.RenderOptions,
    previous?: RenderState | null,
  ): (MarkedText & { state?: RenderState }) | null {
    if (!this.markable || (options.tools && holdsMarker(options.tools))) return null;
    if (previous === undefined) {
      if (holdsMarker(messages)) return null;
      return this.evaluator.marked(this.context(messages, options), messages.length);
    }
    const values = messageValues(messages, previous?.values ?? null, this.plain);
    if (values.some((v) => v.hasMarker)) return null;
    const ctx = this.context(messages, options, messagesVariable(values));
    const memo = {
      previous: previous?.loops ?? null,
      defined: this.defined,
      messages: values,
      indexOf: (v: unknown) => indexIn(values, v),
      previousMarked: previous?.marked ?? null,
    };
    const marked = renderMarked(this.template, ctx, messages.length, memo);
    return marked && { ...marked, state: { loops: marked.loops!, values, marked } };
  }

  render(messages: R.RenderMessage[], options: R.RenderOptions = {}): R.RenderedTokens {
    assertWellFormed(messages);
    this.refuseUnrenderedTools(options);
    const prompt = options.addGenerationPrompt === true;
    // No loop records: the compiled evaluator keeps none, and a bridge from this prompt
    // records its own (one library render of the conversation, then incremental ones).
    const owned = this.renderOwned(messages, options);
    const tokens = tokenizeOwned(this.tokenizer, owned.text, owned.owner, this.spans(messages, owned, 0));
    if (prompt) this.prompts.remember(tokens.tokenIds, owned.text, owned.state ?? null);
    return { ...tokens, messageRoles: messageRoles(messages), messageToolNames: messageToolNames(messages) };
  }

  /**
   * Segments of `owned.text[from:]`, message indices shifted by `-indexBase`: an assistant's
   * part is sampled (and body) from after the generation-prompt opener up to and including its
   * last stop token; other messages' body is where their content string appears in their part.
   */
  segments(messages: readonly R.RenderMessage[], owned: OwnedText, from: number, indexBase = 0): Segment[] {
    return toSegments(owned.text, owned.owner, from, indexBase, this.spans(messages, owned, from));
  }

  /** The sampled and body ranges of `owned.text[from:]` (see `segments`). */
  private spans(messages: readonly R.RenderMessage[], owned: OwnedText, from: number): Spans {
    const { text, owner } = owned;
    const sampled: [number, number][] = [];
    const content: [number, number][] = [];
    const opener = this.generationOpener();
    let s = from;
    while (s < text.length) {
      let e = s + 1;
      while (e < text.length && owner[e] === owner[s]) e++;
      const k = owner[s]!;
      if (k >= 0 && messages[k]) {
        const part = text.slice(s, e);
        if (messages[k].role === "assistant") {
          const start = s + commonPrefix(opener, part);
          sampled.push([start, this.lastStopEnd(text.slice(0, e), start)]);
        } else {
          const body = contentText(messages[k].content);
          const at = body ? part.indexOf(body) : -1;
          if (at >= 0) content.push([s + at, s + at + body.length]);
        }
      }
      s = e;
    }
    return { sampled, content };
  }

  /** What the template writes to open an assistant turn (its generation prompt), cached. */
  generationOpener(): string {
    if (this.opener === null) {
      const msgs = [{ role: "user", content: "x" }];
      try {
        const without = this.renderText(msgs);
        const withPrompt = this.renderText(msgs, { addGenerationPrompt: true });
        this.opener = withPrompt.startsWith(without) ? withPrompt.slice(without.length) : "";
      } catch {
        this.opener = "";
      }
    }
    return this.opener;
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

  parse(completionIds: number[], options?: { tools?: R.RenderTool[] | null }): R.ParsedResponse {
    let end = completionIds.findIndex((id) => this.stopTokenIds.includes(id));
    if (end < 0) end = completionIds.length;
    const ids = completionIds.slice(0, end);
    const parser = this.options.toolParser;
    const { contentIds, toolCalls } =
      parser === "deepseek-v3"
        ? parseDeepSeekToolCalls(this.tokenizer, ids)
        : parser === "llama3"
          ? parseLlama3ToolCalls(this.tokenizer, ids, this.tokenizer.tokenToId("<|python_tag|>"), {
              // A bare JSON reply is a call only where tools were offered (it may be an answer).
              bareJson: (options?.tools?.length ?? 0) > 0,
            })
          : this.toolIds
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

  /** See `bridge.ts`: declines (null, with the reason) unless the template is verified stable. */
  bridge(...args: R.BridgeArgs): R.BridgedTokens | null {
    return jinjaBridge(this as BridgeContext, ...args);
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
