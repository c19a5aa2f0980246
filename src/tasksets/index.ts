/**
 * Built-in tasksets by id, imported lazily so a run loads only the taskset it uses.
 * (Placeholder created by the runtime side; the tasksets owner fills it in.)
 */
import type { Taskset } from "../task.ts";

export const builtinTasksets: Record<string, () => Promise<Taskset<any, any>>> = {};
