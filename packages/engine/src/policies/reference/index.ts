/**
 * The `reference` policy's solver registry: one import per built-in taskset. To add a taskset,
 * write `<name>.ts` exporting a ReferenceSolver and list it here; the first match wins.
 */
import { codeGolfSolver } from "./code-golf.ts";
import { guessNumberSolver } from "./guess-number.ts";
import { reverseTextSolver } from "./reverse-text.ts";
import { shortAnswerSolver } from "./short-answer.ts";
import { toolMathSolver } from "./tool-math.ts";
import type { ReferenceSolver } from "./types.ts";

export type { ReferenceSolver } from "./types.ts";

export const REFERENCE_SOLVERS: readonly ReferenceSolver[] = [
  reverseTextSolver,
  codeGolfSolver,
  toolMathSolver,
  guessNumberSolver,
  shortAnswerSolver,
];

export function findSolver(promptText: string): ReferenceSolver | null {
  return REFERENCE_SOLVERS.find((s) => s.matches(promptText)) ?? null;
}
