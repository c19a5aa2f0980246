/**
 * The solver contract of the `reference` policy: one file per built-in taskset. A solver reads
 * the conversation as the served family's format reads it back (formats/), never the prompt
 * text, and answers with a turn that the engine writes in that family's format.
 */
import type { Rng } from "envroll/internal/random.ts";
import type { ChatMessage, ReferenceTurn } from "../../types.ts";

export interface SolverInput {
  /** The conversation before the generation prompt (tool results as `tool`, calls in `tool_calls`). */
  readonly messages: readonly ChatMessage[];
  /** The tool names the prompt offers; empty where the family's template writes no tools. */
  readonly tools: readonly string[];
}

export interface ReferenceSolver {
  /** Taskset name, for logs and stats. */
  name: string;
  /** True when the conversation is one of this taskset's tasks. */
  matches(input: SolverInput): boolean;
  /** The assistant turn: correct, or with seeded noise so that rewards vary across a group. */
  solve(input: SolverInput, rng: Rng): ReferenceTurn;
}

/** True when a system or user message carries `text` (a taskset's fixed instructions). */
export function carries(input: SolverInput, text: string): boolean {
  return input.messages.some((m) => (m.role === "system" || m.role === "user") && m.content.includes(text));
}

/**
 * `content` and each of its tails after a blank line, longest first: where a template folds the
 * system prompt into the first user turn (Gemma), the task's own text is one of the tails.
 */
export function paragraphTails(content: string): string[] {
  const out = [content];
  for (let i = content.indexOf("\n\n"); i >= 0; i = content.indexOf("\n\n", i + 2))
    out.push(content.slice(i + 2));
  return out;
}
