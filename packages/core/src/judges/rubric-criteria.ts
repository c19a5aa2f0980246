/**
 * Rubric criteria (Verifiers V1 `judges/rubric.py`): the file, its checks, and the grading of one
 * batch of verdicts. Choices run worst → best, so a verdict scores its index / (choices − 1).
 */
import { readFileSync } from "node:fs";
import { parse as parseToml } from "smol-toml";
import { z } from "zod";
import { JudgeError } from "../errors.ts";
import { lazySchema } from "../lazy-schema.ts";

export const CriterionSchema = lazySchema(() =>
  z.strictObject({
    name: z.string().min(1, { error: "expected a non-empty criterion name" }),
    text: z.string(),
    weight: z.number().min(0, { error: "expected a finite weight ≥ 0" }).default(1),
    choices: z
      .array(z.string())
      .min(2, { error: "expected at least 2 choices, worst to best" })
      .default(["no", "yes"])
      .refine((c) => new Set(c).size === c.length, { error: "choices repeat an option" }),
  }),
);
export type Criterion = z.output<typeof CriterionSchema>;

function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues.map((i) => `criteria.${i.path.join(".")}: ${i.message}`).join("; ");
}

/** Reads and checks a `.toml` or `.json` rubric; `weights` overrides criteria by name. */
export function loadCriteria(path: string, weights: Readonly<Record<string, number>> = {}): Criterion[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new Error(`cannot read rubric ${path}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
  let data: unknown;
  try {
    data = path.toLowerCase().endsWith(".toml") ? parseToml(text) : JSON.parse(text);
  } catch (e) {
    throw new Error(`rubric ${path} does not parse: ${e instanceof Error ? e.message : String(e)}`);
  }
  const items = Array.isArray(data) ? data : ((data as Record<string, unknown> | null)?.["criteria"] ?? []);
  const parsed = z.array(CriterionSchema).safeParse(items);
  if (!parsed.success) throw new Error(`rubric ${path}: ${describeIssues(parsed.error.issues)}`);
  const criteria = parsed.data;
  if (criteria.length === 0) throw new Error(`rubric ${path} lists no criteria`);
  const names = criteria.map((c) => c.name);
  if (new Set(names).size !== names.length) throw new Error(`rubric ${path} repeats a criterion name`);
  const unknown = Object.keys(weights).filter((k) => !names.includes(k));
  if (unknown.length > 0)
    throw new Error(
      `weights: ${unknown.map((k) => JSON.stringify(k)).join(", ")} name no criterion of ${path}`,
    );
  const out = criteria.map((c) => ({ ...c, weight: weights[c.name] ?? c.weight }));
  if (!(out.reduce((s, c) => s + c.weight, 0) > 0))
    throw new Error(`rubric ${path} has no positive criterion weight`);
  return out;
}

/** The first balanced JSON object in `text` that has a `verdicts` key (prose and echoed examples skipped). */
export function firstVerdictsObject(text: string): Record<string, unknown> | null {
  for (let start = text.indexOf("{"); start >= 0; start = text.indexOf("{", start + 1)) {
    const end = balancedEnd(text, start);
    if (end < 0) continue;
    try {
      const obj = JSON.parse(text.slice(start, end));
      if (obj && typeof obj === "object" && !Array.isArray(obj) && "verdicts" in obj) return obj;
    } catch {}
  }
  return null;
}

/** Index just past the brace closing the one at `start`, honouring JSON strings; −1 if unclosed. */
function balancedEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{") depth++;
    else if (c === "}" && --depth === 0) return i + 1;
  }
  return -1;
}

const VerdictsSchema = lazySchema(() =>
  z.object({
    verdicts: z.array(z.object({ name: z.string(), reason: z.string(), verdict: z.string() })),
  }),
);

/** Checks one batch's verdicts (exact names, exact choices) and scores each criterion in [0, 1]. */
export function scoreVerdicts(obj: unknown, batch: readonly Criterion[]): Record<string, number> {
  const parsed = VerdictsSchema.safeParse(obj);
  if (!parsed.success)
    throw new JudgeError(
      `judge verdicts are malformed: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(top)"} ${i.message}`).join("; ")}`,
    );
  const answers = new Map<string, string>();
  for (const v of parsed.data.verdicts) {
    if (answers.has(v.name)) throw new JudgeError(`judge answered criterion ${JSON.stringify(v.name)} twice`);
    answers.set(v.name, v.verdict);
  }
  const expected = batch.map((c) => c.name).sort();
  const got = [...answers.keys()].sort();
  if (JSON.stringify(got) !== JSON.stringify(expected))
    throw new JudgeError(`judge verdicts name ${JSON.stringify(got)}, expected ${JSON.stringify(expected)}`);
  const scores: Record<string, number> = {};
  for (const c of batch) {
    const answer = answers.get(c.name)!;
    const i = c.choices.indexOf(answer);
    if (i < 0)
      throw new JudgeError(
        `judge answered ${JSON.stringify(answer)} for ${JSON.stringify(c.name)}, expected one of ${JSON.stringify(c.choices)}`,
      );
    scores[c.name] = i / (c.choices.length - 1);
  }
  return scores;
}
