/**
 * Shared bridge rules: where the sampled history may be cut, and how the carried prefix and the
 * newly rendered tail become one RenderedTokens. Only the completion is searched for a turn
 * close — a close inside the prompt is template scaffold, not something this turn produced —
 * and the turn ends at the FIRST close, where the parser ends it too: the assistant message the
 * program saw is what the next prompt carries (the engine stops there; anything after it was
 * never part of the turn).
 */
import { type TokenIds, TokenSequence } from "../../token-sequence.ts";
import type {
  BridgedTokens,
  BridgeOptions,
  RenderedTokens,
  RenderMessage,
  TokenAttribution,
} from "../renderer.ts";

/**
 * The opening every family's bridge shares: the reporter for declines (it returns null, for
 * `return decline(…)`), or null when the inputs cannot be bridged by any renderer (no previous
 * prompt, no new messages, or a new assistant turn) — reported already.
 */
export function openBridge(
  prevPromptIds: TokenIds,
  newMessages: readonly RenderMessage[],
  options: BridgeOptions,
): ((reason: string) => null) | null {
  const decline = (reason: string): null => {
    options.onDecline?.(reason);
    return null;
  };
  if (prevPromptIds.length === 0) return decline("no previous prompt");
  if (newMessages.length === 0) return decline("no new messages");
  if (newMessages.some((m) => m.role === "assistant"))
    return decline("the new messages include an assistant turn");
  return decline;
}

/**
 * `prevPrompt + prevCompletion` cut after the FIRST close token inside the completion (anything
 * the engine emitted after it is dropped; when the completion has none — truncated at the token
 * cap — the canonical close is appended instead), followed by `tail`.
 */
export function bridgeIds(
  prevPromptIds: TokenIds,
  prevCompletionIds: readonly number[],
  closeIds: readonly number[],
  synthesizeClose: number,
  tail: readonly number[],
): TokenSequence {
  const keep = prevCompletionIds.findIndex((id) => closeIds.includes(id)) + 1;
  return keep === 0
    ? extendPrompt(prevPromptIds, prevCompletionIds, prevCompletionIds.length, synthesizeClose, tail)
    : extendPrompt(prevPromptIds, prevCompletionIds, keep, null, tail);
}

/**
 * The previous prompt, the first `keep` completion ids, the synthesized close (when not null)
 * and the tail, as one sequence sharing the previous prompt's storage: O(appended ids), never a
 * copy of the history. The inputs are never modified.
 */
export function extendPrompt(
  prevPromptIds: TokenIds,
  prevCompletionIds: readonly number[],
  keep: number,
  synthesizeClose: number | null,
  tail: readonly number[],
): TokenSequence {
  let seq = TokenSequence.of(prevPromptIds).append(prevCompletionIds, 0, keep);
  if (synthesizeClose !== null) seq = seq.append([synthesizeClose]);
  return seq.append(tail);
}

/** The bridged result: `ids` (carried prefix + tail) with the tail's own attribution. */
export function bridgedTokens(
  ids: TokenSequence,
  tail: TokenAttribution,
  messageRoles: string[],
  messageToolNames: (string | null)[],
): BridgedTokens {
  return {
    tokenIds: ids,
    prefixLength: ids.length - tail.tokenIds.length,
    tail,
    messageRoles,
    messageToolNames,
  };
}

/**
 * A bridge result with full-length attribution arrays, as a full render would give them (the
 * carried prefix −1 / not sampled / not content). O(history): for inspection and tests, not
 * for the per-turn path.
 */
export function expandBridged(b: BridgedTokens): RenderedTokens {
  const n = b.prefixLength;
  return {
    tokenIds: b.tokenIds.toArray(),
    messageIndices: new Array<number>(n).fill(-1).concat(b.tail.messageIndices),
    sampledMask: new Array<boolean>(n).fill(false).concat(b.tail.sampledMask),
    isContent: new Array<boolean>(n).fill(false).concat(b.tail.isContent),
    messageRoles: b.messageRoles,
    messageToolNames: b.messageToolNames,
  };
}
