/**
 * Lenient short-answer comparison: case, accents, punctuation and spacing do not matter, and a
 * reference counts as given when its words appear in order, side by side, in the response
 * ("The capital is Paris." gives "paris"). Shared by the short-answer taskset's exact-match metric
 * and the built-in engine's judge policy, so the two agree on what "the same answer" means.
 */

/** Lowercase words of `text`: NFKD with marks dropped, anything but letters and digits a separator. */
export function answerWords(text: string): string[] {
  return text
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w !== "");
}

/** The response states one of the references (as a whole-word run). */
export function containsAnswer(response: string, references: readonly string[]): boolean {
  const words = answerWords(response);
  return references.some((ref) => {
    const want = answerWords(ref);
    if (want.length === 0) return false;
    for (let i = 0; i + want.length <= words.length; i++)
      if (want.every((w, k) => words[i + k] === w)) return true;
    return false;
  });
}

/** The response is exactly one of the references, up to case, accents and punctuation. */
export function equalsAnswer(response: string, references: readonly string[]): boolean {
  const got = answerWords(response).join(" ");
  return got !== "" && references.some((ref) => answerWords(ref).join(" ") === got);
}
