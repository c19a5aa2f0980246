/**
 * Shared bridge rules: where the sampled history may be cut. Only the completion is searched for
 * a turn close — a close inside the prompt is template scaffold, not something this turn produced.
 */

/**
 * `prevPrompt + prevCompletion` cut after the LAST close token inside the completion (anything
 * the engine emitted after it is dropped); when the completion has none (truncated at the token
 * cap) the canonical close is appended instead.
 */
export function trimToTurnClose(
  prevPromptIds: readonly number[],
  prevCompletionIds: readonly number[],
  closeIds: readonly number[],
  synthesizeClose: number,
): number[] {
  for (let i = prevCompletionIds.length - 1; i >= 0; i--) {
    if (closeIds.includes(prevCompletionIds[i])) {
      return prevPromptIds.concat(prevCompletionIds.slice(0, i + 1));
    }
  }
  return prevPromptIds.concat(prevCompletionIds, [synthesizeClose]);
}
