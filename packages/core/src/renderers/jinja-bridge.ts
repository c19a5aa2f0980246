/**
 * The generic renderer's bridge: extend the sampled ids with the new messages for any template,
 * but only after checking on the spot that the template is append-only for this conversation.
 *
 * The template is rendered once over the whole conversation (one pass with message spans). The
 * text before the sampled assistant turn must equal the previous turn's prompt text minus its
 * generation prompt — the template rendered that history the same way then as now — or the
 * bridge declines. The tail is what the template writes after the assistant's stop token (e.g.
 * Gemma's `\n`) plus the new messages and the generation prompt; the stop token is an added
 * token, so the tail tokenizes the same alone as inside the full text, and that is checked too.
 * The result is `prevPrompt + prevCompletion` up to its FIRST stop token (where the parser ends
 * the turn; synthesized when the turn was cut off) followed by the tail's ids.
 */
import { createHash } from "node:crypto";
import type { TokenIds } from "../token-sequence.ts";
import type { Tokenizer } from "../tokenizer/index.ts";
import { type Segment, tokenizeSegments } from "./attribution.ts";
import { basicBridgeDecline, bridgedTokens, bridgeIds, declineWith } from "./bridge.ts";
import { type MarkedText, ownersFromMarks } from "./jinja-attribution.ts";
import { messageRoles, messageToolNames } from "./messages.ts";
import type { BridgedTokens, BridgeOptions, RenderMessage, RenderOptions } from "./renderer.ts";

export interface BridgeContext {
  readonly tokenizer: Tokenizer;
  readonly stopTokenIds: number[];
  readonly promptTexts: Map<string, string>;
  renderMarkedText(messages: readonly RenderMessage[], options: RenderOptions): MarkedText | null;
  renderText(messages: readonly RenderMessage[], options: RenderOptions): string;
  segments(
    messages: readonly RenderMessage[],
    owned: { text: string; owner: Int32Array; loopEnd: number },
    from: number,
    indexBase?: number,
  ): Segment[];
}

/** How many prompt texts a renderer keeps for the next turn's stability check. */
const PROMPT_TEXTS_MAX = 1024;

export function conversationKey(messages: readonly RenderMessage[], options: RenderOptions): string {
  const h = createHash("sha256");
  h.update(JSON.stringify([options.tools ?? null, options.enableThinking ?? null]));
  for (const m of messages) h.update(JSON.stringify(m)).update("\u0000");
  return h.digest("base64");
}

/** Remembers the text of a prompt this renderer produced (for the next turn's bridge). */
export function rememberPrompt(ctx: BridgeContext, key: string, text: string): void {
  if (ctx.promptTexts.size >= PROMPT_TEXTS_MAX) {
    const oldest = ctx.promptTexts.keys().next().value;
    if (oldest !== undefined) ctx.promptTexts.delete(oldest);
  }
  ctx.promptTexts.set(key, text);
}

export function jinjaBridge(
  ctx: BridgeContext,
  prevPromptIds: TokenIds,
  prevCompletionIds: readonly number[],
  newMessages: RenderMessage[],
  options: BridgeOptions,
): BridgedTokens | null {
  const decline = declineWith(options);
  const basic = basicBridgeDecline(prevPromptIds, newMessages);
  if (basic) return decline(basic);
  const all = options.messages;
  if (!all) return decline("the conversation was not passed to the bridge (options.messages)");
  const first = all.length - newMessages.length;
  const a = first - 1;
  if (a < 0 || all[a]?.role !== "assistant")
    return decline("the message before the new ones is not the sampled assistant turn");
  const opts: RenderOptions = { tools: options.tools, enableThinking: options.enableThinking };
  const marked = ctx.renderMarkedText(all, { ...opts, addGenerationPrompt: true });
  if (!marked) return decline("the template's message spans cannot be read from one render");
  const aStart = marked.starts[a]!;
  if (aStart < 0) return decline("the template wrote nothing for the sampled assistant turn");

  // Was the history before the sampled turn rendered the same way last turn?
  const prevMessages = all.slice(0, a);
  const prevKey = conversationKey(prevMessages, opts);
  const prevText =
    ctx.promptTexts.get(prevKey) ?? ctx.renderText(prevMessages, { ...opts, addGenerationPrompt: true });
  if (!prevText.startsWith(marked.text.slice(0, aStart)) || prevText.length < aStart)
    return decline("the template renders the earlier history differently now (not append-only)");

  let tailStart = marked.loopEnd;
  for (let k = first; k < all.length; k++) {
    if (marked.starts[k]! >= 0) {
      tailStart = marked.starts[k]!;
      break;
    }
  }
  const part = marked.text.slice(aStart, tailStart);
  let closeEnd = -1;
  let closeId = -1;
  for (const id of ctx.stopTokenIds) {
    const s = ctx.tokenizer.idToToken(id);
    const at = s ? part.lastIndexOf(s) : -1;
    if (s && at >= 0 && at + s.length > closeEnd) {
      closeEnd = at + s.length;
      closeId = id;
    }
  }
  if (closeEnd < 0) return decline("the template closes an assistant turn with no stop token");

  const owner = ownersFromMarks(marked);
  const afterClose = part.slice(closeEnd);
  const tailText = afterClose + marked.text.slice(tailStart);
  const tailOwner = new Int32Array(tailText.length).fill(-1);
  tailOwner.set(owner.subarray(tailStart), afterClose.length);
  const owned = { text: tailText, owner: tailOwner, loopEnd: tailText.length };
  const tail = tokenizeSegments(ctx.tokenizer, ctx.segments(all, owned, 0, first));

  // The tail must be exactly what the full render has after the assistant's stop token.
  const full = ctx.tokenizer.encode(marked.text);
  const at = full.length - tail.tokenIds.length;
  if (at < 1 || full[at - 1] !== closeId || tail.tokenIds.some((id, j) => full[at + j] !== id))
    return decline("the new messages tokenize differently inside the full render");

  const ids = bridgeIds(prevPromptIds, prevCompletionIds, ctx.stopTokenIds, closeId, tail.tokenIds);
  rememberPrompt(ctx, conversationKey(all, opts), marked.text);
  return bridgedTokens(ids, tail, messageRoles(newMessages), messageToolNames(newMessages));
}
