/**
 * Built-in tasksets by id, imported lazily so a run loads only the taskset it uses (code-golf
 * pulls in the sandbox runtime's types, tool-math zod tool schemas, reverse-text a dataset).
 */
import type { Taskset } from "../task.ts";

export const builtinTasksets: Record<string, () => Promise<Taskset<any, any>>> = {
  "reverse-text": async () => (await import("./reverse-text/index.ts")).default,
  "code-golf": async () => (await import("./code-golf/index.ts")).default,
  "tool-math": async () => (await import("./tool-math/index.ts")).default,
  "guess-number": async () => (await import("./guess-number/index.ts")).default,
  "short-answer": async () => (await import("./short-answer/index.ts")).default,
};
