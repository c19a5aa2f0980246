/**
 * short-answer's reference solution: the question's answer — bare, in a sentence, or (seeded
 * noise, about a third of the time) another question's answer that is wrong here — so the
 * judge's verdicts differ across a group.
 */
import type { Rng } from "../../random.ts";
import type { ReferenceContext, ReferenceSolution } from "../../task.ts";
import { containsAnswer } from "../../text/answer-match.ts";
import { QUESTIONS } from "./questions.ts";

function wrongAnswer(answers: readonly string[], rng: Rng): string {
  const wrong = QUESTIONS.map((q) => q.answers[0]!).filter((a) => !containsAnswer(a, answers));
  return wrong[Math.floor(rng() * wrong.length)]!;
}

/** The reference for conversations opened by `system` (this taskset's system prompt). */
export function shortAnswerReference(system: string) {
  return ({ messages, rng }: ReferenceContext): ReferenceSolution | null => {
    if (!messages.some((m) => m.role === "system" && m.content.includes(system))) return null;
    const question = messages.filter((m) => m.role === "user").at(-1)?.content;
    const q = QUESTIONS.find((x) => x.question === question);
    if (!q) return "I do not know.";
    const u = rng();
    if (u < 0.45) return q.answers[0]!;
    if (u < 0.7) return `The answer is ${q.answers[0]}.`;
    return wrongAnswer(q.answers, rng);
  };
}
