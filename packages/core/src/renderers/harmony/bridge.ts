/**
 * The gpt-oss bridge: the next prompt is the previous prompt and the sampled turn exactly as
 * sampled, then the new messages and the generation prompt.
 *
 * What a trained history is. A full render rewrites the sampled turn in two ways: a final answer
 * the model closed with `<|return|>` is written back closed by `<|end|>`, and the reasoning
 * (analysis messages) of every turn before the last final answer is dropped. A bridged prompt
 * keeps both as sampled — the ids the policy produced, with their logprobs, are the ones the
 * next turn is conditioned on and trained through, so every turn of an episode extends one
 * token sequence. The bridged prompt therefore differs from a full render of the same
 * conversation exactly there, by design; the new messages' tokens are the full render's own
 * (each harmony message opens and closes with a special token, so nothing tokenized after the
 * carried ids can merge with them).
 *
 * The sampled turn ends at its first `<|call|>` or `<|return|>` (where the engine stops and the
 * parser ends). A turn cut short by the token cap inside a message body is closed with the
 * `<|end|>` harmony ends a message with; a turn that already ended with `<|end|>` needs nothing.
 * Declined (null, with the reason): a turn cut inside a message header (no `<|message|>` yet,
 * so no close would make it a message), and a tool result whose author (the function it
 * answers) cannot be found.
 */
import type { Tokenizer } from "../../tokenizer/index.ts";
import { SegmentList, tokenizeSegments } from "../common/attribution.ts";
import { bridgedTokens, extendPrompt, openBridge } from "../common/bridge.ts";
import { assertWellFormed, messageRoles } from "../common/messages.ts";
import type { BridgeArgs, BridgedTokens, BridgeOptions, RenderMessage } from "../renderer.ts";
import { GENERATION_PROMPT, HARMONY_IDS, pushToolResult, pushUser } from "./format.ts";
import { parseHarmonyCompletion } from "./parse.ts";
import { harmonyToolNames } from "./render.ts";

/** How many completion ids the next prompt carries, and whether `<|end|>` must be appended; or why not. */
function sampledTurn(completion: readonly number[]): { keep: number; synthesize: boolean } | string {
  const { return: RETURN, call: CALL, end: END, start: START, message: MESSAGE } = HARMONY_IDS;
  const close = completion.findIndex((id) => id === RETURN || id === CALL);
  if (close >= 0) return { keep: close + 1, synthesize: false };
  if (completion.length > 0 && completion[completion.length - 1] === END)
    return { keep: completion.length, synthesize: false };
  const lastStart = completion.lastIndexOf(START);
  if (completion.indexOf(MESSAGE, lastStart + 1) < 0)
    return "the sampled turn was cut inside a message header (before <|message|>), so no <|end|> can close it";
  return { keep: completion.length, synthesize: true };
}

export function bridgeHarmony(
  tokenizer: Tokenizer,
  ...[prevPromptIds, prevCompletionIds, newMessages, options = {}]: BridgeArgs
): BridgedTokens | null {
  const decline = openBridge(prevPromptIds, newMessages, options);
  if (!decline) return null;
  assertWellFormed(newMessages);
  const turn = sampledTurn(prevCompletionIds);
  if (typeof turn === "string") return decline(turn);

  const names = toolNames(tokenizer, prevCompletionIds.slice(0, turn.keep), newMessages, options);
  const out = new SegmentList();
  for (const [i, m] of newMessages.entries()) {
    if (m.role === "user") pushUser(out, m, i);
    else if (m.role === "tool") {
      const name = names[i];
      if (name === null || name === undefined)
        return decline(
          `new message ${i} is a tool result with no name and no tool call before it to take the function name from`,
        );
      pushToolResult(out, m, name, i);
    }
    // Later system/developer messages: the template renders none after the first message.
  }
  out.push(GENERATION_PROMPT, -1, false, false);
  const tail = tokenizeSegments(tokenizer, out.segments);

  const ids = extendPrompt(
    prevPromptIds,
    prevCompletionIds,
    turn.keep,
    turn.synthesize ? HARMONY_IDS.end : null,
    tail.tokenIds,
  );
  return bridgedTokens(ids, tail, messageRoles(newMessages), names);
}

/**
 * Each new tool message's author, by the full render's rule over the whole conversation when
 * the caller passes it; otherwise from the new messages themselves and, failing that, the
 * function the sampled turn called.
 */
function toolNames(
  tokenizer: Tokenizer,
  sampled: readonly number[],
  newMessages: readonly RenderMessage[],
  options: BridgeOptions,
): (string | null)[] {
  const all = options.messages;
  const names =
    all && all.length >= newMessages.length
      ? harmonyToolNames(all).slice(all.length - newMessages.length)
      : harmonyToolNames(newMessages);
  const isTool = newMessages.map((m) => m.role === "tool");
  if (!names.some((n, i) => n === null && isTool[i])) return names;
  const calls = parseHarmonyCompletion(tokenizer, sampled).toolCalls.filter((c) => c.name !== null);
  const called = calls.at(-1)?.name ?? null;
  // Only tool results before any other new message answer the sampled call.
  let answering = true;
  return names.map((n, i) => {
    if (!isTool[i]) answering = false;
    return n ?? (answering && isTool[i] ? called : null);
  });
}
