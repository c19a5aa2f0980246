/**
 * Policy lookup: `echo`, `reference`, `judge`, `replay:<file.jsonl>`, or a function passed in-process.
 */
import type { PolicyFn, ReferenceSource } from "../types.ts";
import { echoPolicy } from "./echo.ts";
import { judgePolicy } from "./judge.ts";
import { referencePolicy } from "./reference.ts";
import { replayPolicy } from "./replay.ts";

export { chatMessages, parseChatPrompt } from "./chat-prompt.ts";
export { formatReferenceTurn, referencePolicy } from "./reference.ts";

export function resolvePolicy(spec: string | PolicyFn | undefined, reference?: ReferenceSource): PolicyFn {
  if (typeof spec === "function") return spec;
  const name = spec ?? "echo";
  if (name === "echo") return echoPolicy;
  if (name === "reference") return referencePolicy(reference);
  if (name === "judge") return judgePolicy;
  if (name.startsWith("replay:")) return replayPolicy(name.slice("replay:".length));
  throw new Error(
    `unknown engine policy ${JSON.stringify(name)} (echo | reference | judge | replay:<file.jsonl>)`,
  );
}

/** A display name for a policy spec (model name, logs). */
export function policyName(spec: string | PolicyFn | undefined): string {
  if (typeof spec === "function") return "custom";
  return (spec ?? "echo").split(":")[0]!;
}
