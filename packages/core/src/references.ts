/**
 * Reference solutions as an answer source for the built-in engine's `reference` policy. A
 * taskset says how its tasks are solved (`Taskset.reference`); this module finds which task a
 * conversation belongs to and which step of the solution comes next, so the engine knows nothing
 * of any taskset and a user's taskset is answered exactly like a built-in one.
 *
 * A conversation is matched to a task by its first user message (the task's opening prompt);
 * tasks that open with the same text share one reference. The next step is the number of
 * assistant turns taken since the task's own prompt.
 */
import { taskPrompt } from "./harnesses/prompt.ts";
import type { ReferenceMessage, ReferenceSolution, ReferenceToolCall, Taskset } from "./task.ts";
import { builtinTasksets } from "./tasksets/index.ts";
import { contentText, type TaskData } from "./types.ts";

/** What the engine plays for one turn: text, and the tool calls to render after it. */
export interface ReferenceTurn {
  content: string;
  tool_calls: ReferenceToolCall[];
}

export type ReferenceSource = (
  messages: readonly ReferenceMessage[],
  rng: () => number,
) => ReferenceTurn | null;

export interface ReferenceStats {
  /** Turns a reference solution answered. */
  answered: number;
  /** Turns no reference answered (the engine echoed the prompt instead). */
  unanswered: number;
}

export interface ReferenceBook {
  readonly answer: ReferenceSource;
  readonly stats: ReferenceStats;
  /** Ids of the tasksets that define a reference (empty: every turn is echoed). */
  readonly tasksetIds: readonly string[];
}

export interface ReferenceEntry {
  taskset: Taskset<any, any>;
  /** The task rows being served; without them the reference gets `task: null`. */
  tasks?: readonly TaskData[];
}

interface Indexed {
  taskset: Taskset<any, any>;
  byOpening: Map<string, { task: TaskData; assistants: number }>;
  /** The task for conversations without a user message in the task prompt, when unambiguous. */
  noOpening: { task: TaskData; assistants: number } | null;
}

const firstUser = (messages: readonly { role: string; content: string }[]) =>
  messages.find((m) => m.role === "user")?.content;

function index(entry: ReferenceEntry): Indexed {
  const byOpening = new Map<string, { task: TaskData; assistants: number }>();
  const withoutOpening: TaskData[] = [];
  for (const task of entry.tasks ?? []) {
    const prompt = taskPrompt(task).map((m) => ({ role: m.role, content: contentText(m.content) }));
    const opening = firstUser(prompt);
    const assistants = prompt.filter((m) => m.role === "assistant").length;
    if (opening === undefined) withoutOpening.push(task);
    else if (!byOpening.has(opening)) byOpening.set(opening, { task, assistants });
  }
  const only = withoutOpening.length === 1 ? withoutOpening[0]! : null;
  return { taskset: entry.taskset, byOpening, noOpening: only && { task: only, assistants: 0 } };
}

/** The turn to play from a solution: plan steps first (one call per turn), then the reply. */
export function playSolution(solution: ReferenceSolution, turn: number): ReferenceTurn {
  if (typeof solution === "string") return { content: solution, tool_calls: [] };
  const step = solution.tool_calls[turn];
  return step ? { content: "", tool_calls: [step] } : { content: solution.reply, tool_calls: [] };
}

export function referenceBook(entries: readonly ReferenceEntry[]): ReferenceBook {
  const indexed = entries.filter((e) => typeof e.taskset.reference === "function").map(index);
  const stats: ReferenceStats = { answered: 0, unanswered: 0 };
  const answer: ReferenceSource = (messages, rng) => {
    const opening = firstUser(messages);
    const assistantTurns = messages.filter((m) => m.role === "assistant").length;
    for (const e of indexed) {
      const hit = opening === undefined ? e.noOpening : (e.byOpening.get(opening) ?? e.noOpening);
      const turn = Math.max(0, assistantTurns - (hit?.assistants ?? 0));
      const solution = e.taskset.reference!({ task: hit?.task ?? null, messages, turn, rng });
      if (solution !== null && solution !== undefined) {
        stats.answered++;
        return playSolution(solution, turn);
      }
    }
    stats.unanswered++;
    return null;
  };
  return { answer, stats, tasksetIds: indexed.map((e) => e.taskset.id) };
}

/**
 * The built-in tasksets' references without task rows, for a standalone engine that serves
 * whichever of them it is asked (each recognises its own conversations).
 */
export async function builtinReferenceBook(): Promise<ReferenceBook> {
  const tasksets = await Promise.all(Object.values(builtinTasksets).map((load) => load()));
  return referenceBook(tasksets.map((taskset) => ({ taskset })));
}
