/**
 * Shared bridge rules: where the sampled history may be cut, and how the carried prefix and the
 * newly rendered tail become one RenderedTokens. Only the completion is searched for a turn
 * close — a close inside the prompt is template scaffold, not something this turn produced —
 * and the turn ends at the FIRST close, where the parser ends it too: the assistant message the
 * program saw is what the next prompt carries (the engine stops there; anything after it was
 * never part of the turn).
 */
import type { TokenAttribution } from "./attribution.ts";
import type { BridgeOptions, RenderedTokens, RenderMessage } from "./renderer.ts";

/** Reports a declined bridge to the caller; returns null for `return decline(…)`. */
export function declineWith(options: BridgeOptions): (reason: string) => null {
  return (reason) => {
    options.onDecline?.(reason);
    return null;
  };
}

/** Why no renderer can bridge these inputs, or null when they may be bridged. */
export function basicBridgeDecline(
  prevPromptIds: readonly number[],
  newMessages: readonly RenderMessage[],
): string | null {
  if (prevPromptIds.length === 0) return "no previous prompt";
  if (newMessages.length === 0) return "no new messages";
  if (newMessages.some((m) => m.role === "assistant")) return "the new messages include an assistant turn";
  return null;
}

/**
 * `prevPrompt + prevCompletion` cut after the FIRST close token inside the completion (anything
 * the engine emitted after it is dropped; when the completion has none — truncated at the token
 * cap — the canonical close is appended instead), followed by `tail`. The history is the bulk
 * of a bridged prompt and is copied exactly once per turn. The inputs are never modified
 * (callers may pass shared, read-only histories).
 */
export function bridgeIds(
  prevPromptIds: readonly number[],
  prevCompletionIds: readonly number[],
  closeIds: readonly number[],
  synthesizeClose: number,
  tail: readonly number[],
): number[] {
  let keep = prevCompletionIds.findIndex((id) => closeIds.includes(id)) + 1;
  const synthesize = keep === 0;
  if (synthesize) keep = prevCompletionIds.length;
  // slice + push (not indexed writes into a presized array): slice copies a packed array in bulk.
  const out = prevPromptIds.slice();
  for (let i = 0; i < keep; i++) out.push(prevCompletionIds[i]!);
  if (synthesize) out.push(synthesizeClose);
  for (let i = 0; i < tail.length; i++) out.push(tail[i]!);
  return out;
}

/**
 * The bridged result: `ids` (carried prefix + tail) with the prefix attributed as scaffold
 * (index −1, not sampled, not content) and the tail's own attribution after it. Each array is
 * copied from a prefilled template (a bulk copy, ~3x cheaper than writing each element), then
 * the tail is appended. The whole sampled mask is false: nothing a bridge adds is sampled.
 */
export function bridgedTokens(
  ids: number[],
  tail: TokenAttribution,
  messageRoles: string[],
  messageToolNames: (string | null)[],
): RenderedTokens {
  const total = ids.length;
  const prefixLength = total - tail.tokenIds.length;
  const messageIndices = repeated(MINUS_ONE, -1, prefixLength);
  const isContent = repeated(FALSE, false, prefixLength);
  for (let j = 0; j < tail.tokenIds.length; j++) {
    messageIndices.push(tail.messageIndices[j]!);
    isContent.push(tail.isContent[j]!);
  }
  const sampledMask = repeated(FALSE, false, total);
  return {
    tokenIds: ids,
    messageIndices,
    sampledMask,
    isContent,
    messageRoles,
    messageToolNames,
    prefixLength,
  };
}

/** Prefilled packed arrays, grown by doubling, that `repeated` copies its runs from. */
const MINUS_ONE: { run: number[] } = { run: [] };
const FALSE: { run: boolean[] } = { run: [] };

/** A fresh array of `n` copies of `value` (the template is never handed out). */
function repeated<T>(template: { run: T[] }, value: T, n: number): T[] {
  if (template.run.length < n) {
    const run: T[] = [];
    const size = Math.max(n, template.run.length * 2, 1024);
    for (let i = 0; i < size; i++) run.push(value);
    template.run = run;
  }
  return template.run.slice(0, n);
}
