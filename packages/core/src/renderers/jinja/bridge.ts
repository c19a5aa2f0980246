/**
 * The generic renderer's bridge: extend the sampled ids with the new messages for any template,
 * but only after checking on the spot that the template is append-only for this conversation.
 *
 * The template is rendered over the whole conversation (one pass with message spans), with its
 * message loops replaying the iterations recorded when the previous prompt was rendered
 * (`loop-memo.ts`: exact by construction, so only the new messages are interpreted). The
 * text before the sampled assistant turn must equal the previous prompt's text — the template
 * rendered that history the same way then as now — or the bridge declines. The tail is what
 * the template writes after the assistant's stop token (e.g. Gemma's `\n`) plus the new
 * messages and the generation prompt. The stop token is an added token, and where the
 * tokenizer proves that text always splits after it (`Tokenizer.splitsAfter`) the tail's ids
 * are exactly the full render's ids after it; for any other tokenizer the full text is encoded
 * and compared. The result is `prevPrompt + prevCompletion` up to its FIRST stop token (where
 * the parser ends the turn; synthesized when the turn was cut off) followed by the tail's ids.
 */
import type { Tokenizer } from "../../tokenizer/index.ts";
import { type Segment, tokenizeSegments } from "../common/attribution.ts";
import { bridgedTokens, bridgeIds, openBridge } from "../common/bridge.ts";
import { messageRoles, messageToolNames } from "../common/messages.ts";
import type { BridgeArgs, BridgedTokens, RenderMessage, RenderOptions } from "../renderer.ts";
import type { MarkedText } from "./attribution.ts";
import type { PromptRecords, RenderState } from "./sessions.ts";

export interface BridgeContext {
  readonly tokenizer: Tokenizer;
  readonly stopTokenIds: number[];
  readonly prompts: PromptRecords;
  renderMarkedText(
    messages: readonly RenderMessage[],
    options: RenderOptions,
    previous?: RenderState | null,
  ): (MarkedText & { state?: RenderState }) | null;
  renderText(messages: readonly RenderMessage[], options: RenderOptions): string;
  segments(
    messages: readonly RenderMessage[],
    owned: { text: string; owner: Int32Array; loopEnd: number },
    from: number,
    indexBase?: number,
  ): Segment[];
}

export function jinjaBridge(
  ctx: BridgeContext,
  ...[prevPromptIds, prevCompletionIds, newMessages, options = {}]: BridgeArgs
): BridgedTokens | null {
  const decline = openBridge(prevPromptIds, newMessages, options);
  if (!decline) return null;
  const all = options.messages;
  if (!all) return decline("the conversation was not passed to the bridge (options.messages)");
  const first = all.length - newMessages.length;
  const a = first - 1;
  if (a < 0 || all[a]?.role !== "assistant")
    return decline("the message before the new ones is not the sampled assistant turn");
  const opts: RenderOptions = { tools: options.tools, enableThinking: options.enableThinking };
  const previous = ctx.prompts.find(prevPromptIds);
  const marked = ctx.renderMarkedText(all, { ...opts, addGenerationPrompt: true }, previous?.state ?? null);
  if (!marked) return decline("the template's message spans cannot be read from one render");
  const aStart = marked.starts[a]!;
  if (aStart < 0) return decline("the template wrote nothing for the sampled assistant turn");

  // Was the history before the sampled turn rendered the same way last turn? (The marked render
  // already found `reused` characters equal to the previous prompt's; sliced-string equality is
  // a memory compare, where startsWith walks character by character.)
  const prevText = previous?.text ?? ctx.renderText(all.slice(0, a), { ...opts, addGenerationPrompt: true });
  const from = previous?.state?.marked.text === prevText ? Math.min(marked.reused ?? 0, aStart) : 0;
  if (prevText.length < aStart || prevText.slice(from, aStart) !== marked.text.slice(from, aStart))
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

  const afterClose = part.slice(closeEnd);
  const tailText = afterClose + marked.text.slice(tailStart);
  const owned = {
    text: tailText,
    owner: tailOwners(marked, first, tailStart, afterClose.length),
    loopEnd: tailText.length,
  };
  const tail = tokenizeSegments(ctx.tokenizer, ctx.segments(all, owned, 0, first));

  // The tail must be exactly what the full render has after the assistant's stop token.
  if (!ctx.tokenizer.splitsAfter?.(closeId)) {
    const full = ctx.tokenizer.encode(marked.text);
    const at = full.length - tail.tokenIds.length;
    if (at < 1 || full[at - 1] !== closeId || tail.tokenIds.some((id, j) => full[at + j] !== id))
      return decline("the new messages tokenize differently inside the full render");
  }

  const ids = bridgeIds(prevPromptIds, prevCompletionIds, ctx.stopTokenIds, closeId, tail.tokenIds);
  ctx.prompts.remember(ids, marked.text, marked.state ?? null);
  return bridgedTokens(ids, tail, messageRoles(newMessages), messageToolNames(newMessages));
}

/**
 * Owners of the tail text: `lead` scaffold characters (after the assistant's stop token), then
 * `text[tailStart:]` owned by the new messages' spans (from `first` on) and the generation prompt.
 */
function tailOwners(marked: MarkedText, first: number, tailStart: number, lead: number): Int32Array {
  const { text, starts, loopEnd } = marked;
  const owner = new Int32Array(lead + text.length - tailStart).fill(-1);
  for (let k = first; k < starts.length; k++) {
    const s = starts[k]!;
    if (s < 0) continue;
    let e = loopEnd;
    for (let j = k + 1; j < starts.length; j++) {
      if (starts[j]! >= 0) {
        e = starts[j]!;
        break;
      }
    }
    owner.fill(k, lead + s - tailStart, lead + e - tailStart);
  }
  return owner;
}
