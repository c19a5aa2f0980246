/**
 * The rules of guess-number, shared by the user simulator (live) and the reward (offline, from
 * the transcript): how a guess is read from a reply and how a guess is answered.
 */

/** `<guess>N</guess>` when present (the last one), else the last integer in the reply. */
export function readGuess(reply: string): number | null {
  const tagged = [...reply.matchAll(/<guess>\s*(-?\d+)\s*<\/guess>/g)].at(-1);
  if (tagged) return Number(tagged[1]);
  const bare = [...reply.matchAll(/-?\d+/g)].at(-1);
  return bare ? Number(bare[0]) : null;
}

export type Verdict = "higher" | "lower" | "correct" | "invalid";

export function judge(guess: number | null, secret: number): Verdict {
  if (guess === null) return "invalid";
  return guess === secret ? "correct" : guess < secret ? "higher" : "lower";
}

/** What the simulated user says back. */
export function verdictText(v: Verdict, remaining: number, low: number, high: number): string {
  const left = remaining === 1 ? "1 guess left" : `${remaining} guesses left`;
  switch (v) {
    case "correct":
      return "Correct! You found my number.";
    case "higher":
      return `Higher. (${left})`;
    case "lower":
      return `Lower. (${left})`;
    case "invalid":
      return `I could not find a number in that. Reply with one whole number between ${low} and ${high}, like <guess>${Math.floor((low + high) / 2)}</guess>. (${left})`;
  }
}

export function openingText(low: number, high: number, maxGuesses: number): string {
  return `Let's play a game. I'm thinking of a whole number between ${low} and ${high}. Guess it! Reply with one guess per message as <guess>N</guess>; I'll answer "higher", "lower" or "correct". You have ${maxGuesses} guesses.`;
}

/** Replays a transcript's guesses: the 1-based guess that hit the secret, or null. */
export function solvedAt(replies: readonly string[], secret: number, maxGuesses: number): number | null {
  for (let i = 0; i < Math.min(replies.length, maxGuesses); i++) {
    if (judge(readGuess(replies[i]!), secret) === "correct") return i + 1;
  }
  return null;
}
