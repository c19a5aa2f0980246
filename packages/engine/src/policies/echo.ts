/**
 * `echo`: replies with the text of the last message (the user turn, a tool result), or the raw
 * prompt text when the prompt is not in chat format. Cheap, deterministic, no noise — the policy
 * for throughput measurements and plumbing tests.
 */
import type { PolicyContext, PolicyFn } from "../types.ts";

export function echoReply(ctx: PolicyContext): string {
  const last = ctx.lastMessage;
  return last ? last.content : ctx.promptText;
}

export const echoPolicy: PolicyFn = echoReply;
