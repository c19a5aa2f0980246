/**
 * The solvers that still live in the engine, for built-in tasksets whose reference depends on
 * the harness's tools (names offered as `<server>_<tool>`, code-golf run through bash): tried
 * after the tasksets' own reference solutions (`Taskset.reference`), which every other taskset uses.
 */
import { codeGolfSolver } from "./code-golf.ts";
import { toolMathSolver } from "./tool-math.ts";
import type { ReferenceSolver, SolverInput } from "./types.ts";

export type { ReferenceSolver, SolverInput } from "./types.ts";

export const REFERENCE_SOLVERS: readonly ReferenceSolver[] = [codeGolfSolver, toolMathSolver];

export function findSolver(input: SolverInput): ReferenceSolver | null {
  return REFERENCE_SOLVERS.find((s) => s.matches(input)) ?? null;
}
