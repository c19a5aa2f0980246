/** The built-in judges by id. One file per judge kind; add a kind here to make its id resolvable. */
import type { JudgeDefinition } from "./judge.ts";
import reference from "./reference.ts";
import rubric from "./rubric.ts";

export const builtinJudges: Readonly<Record<string, JudgeDefinition<any, any>>> = { reference, rubric };

/** Own keys only: "constructor" must not resolve to an Object.prototype member. */
export function builtinJudge(id: string): JudgeDefinition<any, any> | null {
  return Object.hasOwn(builtinJudges, id) ? builtinJudges[id]! : null;
}

export const BUILTIN_JUDGE_IDS: readonly string[] = Object.keys(builtinJudges);
