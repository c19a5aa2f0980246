/**
 * A task's opening messages. The system prompt travels as its own system message (Verifiers'
 * `null` harness behaviour) so that chat templates place it where the model was trained to see it.
 */
import type { Message, TaskData } from "../types.ts";

export function taskPrompt(task: TaskData): Message[] {
  const out: Message[] = [];
  if (task.system_prompt) out.push({ role: "system", content: task.system_prompt });
  const p = task.prompt;
  if (typeof p === "string") out.push({ role: "user", content: p });
  else if (Array.isArray(p)) out.push(...p);
  return out;
}
