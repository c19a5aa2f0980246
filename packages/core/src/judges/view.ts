/**
 * What a judge reads of a task and a rollout (Verifiers `judge_question`, `judge_response`,
 * `TaskData.prompt_text`, `Trace.transcript`), as plain text for a prompt template.
 */
import { JudgeError } from "../errors.ts";
import type { TraceView } from "../task.ts";
import { contentText, type Message, type TaskData } from "../types.ts";
import type { JudgeView } from "./schema.ts";

/** The task prompt as text: a string as is, messages' texts joined by blank lines. */
export function promptText(task: TaskData): string {
  const p = task.prompt;
  if (typeof p === "string") return p;
  if (!Array.isArray(p)) return "";
  return p
    .map((m) => contentText(m.content))
    .filter((t) => t !== "")
    .join("\n\n");
}

function field(task: TaskData, name: string, judge: string, key: string): unknown {
  const v = Object.hasOwn(task, name) ? (task as Record<string, unknown>)[name] : undefined;
  if (v === undefined || v === null)
    throw new JudgeError(
      `judge ${judge}: the task has no ${JSON.stringify(name)} field (set ${key} to the field to grade with)`,
    );
  return v;
}

/** `question_field`, or the prompt text when the field name is empty. */
export function judgeQuestion(task: TaskData, questionField: string, judge: string): string {
  if (!questionField) return promptText(task);
  return String(field(task, questionField, judge, "question_field"));
}

/** The reference answer; a list means "any one of these", one per line. */
export function judgeAnswer(task: TaskData, answerField: string, judge: string): string {
  const v = field(task, answerField, judge, "answer_field");
  return Array.isArray(v) ? v.map(String).join("\n") : String(v);
}

export function judgeResponse(trace: TraceView, view: JudgeView): string {
  return view === "full_trace" ? transcript(trace.messages) : trace.lastReply;
}

/** `[role]` headed blocks; assistant tool calls as `[tool_call name(arguments)]` lines. */
export function transcript(messages: readonly Message[]): string {
  return messages
    .map((m) => {
      const lines: string[] = [];
      if (m.role === "assistant") {
        lines.push("[assistant]");
        const text = contentText(m.content);
        if (text) lines.push(text);
        for (const c of m.tool_calls ?? []) lines.push(`[tool_call ${c.name}(${c.arguments})]`);
      } else {
        lines.push(m.role === "tool" && m.name ? `[tool ${m.name}]` : `[${m.role}]`);
        const text = contentText(m.content);
        if (text) lines.push(text);
      }
      return lines.join("\n");
    })
    .join("\n\n");
}
