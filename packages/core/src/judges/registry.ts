/**
 * Judge definitions by the id a config names: the built-ins, and the module judges the config
 * validator (loaders/judges.ts) imported and checked. The loader finds a validated config's
 * judges here; it never imports or checks one itself.
 */
import { builtinJudge } from "./builtins.ts";
import type { JudgeDefinition } from "./judge.ts";

const modules = new Map<string, JudgeDefinition<any, any>>();

/** A module judge the validator imported, under the id (path or package) its config gives. */
export function registerJudge(id: string, definition: JudgeDefinition<any, any>): void {
  modules.set(id, definition);
}

/** The definition of a judge id: a built-in, or a module judge already validated; null if neither. */
export function judgeDefinition(id: string): JudgeDefinition<any, any> | null {
  return builtinJudge(id) ?? modules.get(id) ?? null;
}
