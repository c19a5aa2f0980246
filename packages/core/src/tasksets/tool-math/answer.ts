/** Reading and checking tool-math's final answer. */

const ANSWER_RE = /<answer>([\s\S]*?)<\/answer>/g;
// \u2212 is the minus sign (−), written as an escape: the CLI bundle must be ASCII and esbuild
// leaves regex literals as they are.
const NUMBER_RE = /[-\u2212]?\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?|[-\u2212]?\.\d+/;

/** The number in the last `<answer>…</answer>` of a reply (thousands separators allowed), or null. */
export function parseAnswer(reply: string): number | null {
  const tags = [...reply.matchAll(ANSWER_RE)];
  const body = tags.at(-1)?.[1];
  if (body === undefined) return null;
  const m = NUMBER_RE.exec(body);
  if (!m) return null;
  const v = Number(m[0].replaceAll(",", "").replace("−", "-"));
  return Number.isFinite(v) ? v : null;
}

/**
 * Correct when within the 2-decimal rounding the prompt asks for (0.01), or one part in a
 * million for large values, where 12 significant digits in tool output already round.
 */
export function isCorrect(got: number | null, expected: number): boolean {
  if (got === null) return false;
  return Math.abs(got - expected) <= Math.max(0.01, 1e-6 * Math.abs(expected));
}
