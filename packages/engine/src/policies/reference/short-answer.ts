/**
 * short-answer: look the question up and answer it — bare, in a sentence, or (seeded noise,
 * about a third of the time) with another question's answer that is wrong here — so the judge's
 * verdicts differ across a group.
 */
import type { Rng } from "envroll/internal/random.ts";
import { SYSTEM } from "envroll/internal/tasksets/short-answer/index.ts";
import { QUESTIONS } from "envroll/internal/tasksets/short-answer/questions.ts";
import { containsAnswer } from "envroll/internal/text/answer-match.ts";
import { lastUserContent } from "../chat-prompt.ts";
import type { ReferenceSolver } from "./types.ts";

function wrongAnswer(answers: readonly string[], rng: Rng): string {
  const wrong = QUESTIONS.map((q) => q.answers[0]!).filter((a) => !containsAnswer(a, answers));
  return wrong[Math.floor(rng() * wrong.length)]!;
}

export const shortAnswerSolver: ReferenceSolver = {
  name: "short-answer",
  matches: (promptText) => promptText.includes(SYSTEM),
  solve(promptText, rng) {
    const question = lastUserContent(promptText);
    const q = QUESTIONS.find((x) => x.question === question);
    if (!q) return "I do not know.";
    const u = rng();
    if (u < 0.45) return q.answers[0]!;
    if (u < 0.7) return `The answer is ${q.answers[0]}.`;
    return wrongAnswer(q.answers, rng);
  },
};
