/**
 * code-golf: find the problem by its description and answer with its reference program — or,
 * under seeded noise, a longer correct one, a wrong one, a crashing one, or prose without a
 * code block — so a group's correct/most_concise/fastest rewards actually differ. When the
 * harness offers a `bash` tool (the coding agent), the program is written and run first; a run
 * whose output is wrong is usually followed by one more try with the reference program.
 */

import type { Rng } from "envroll/internal/random.ts";
import { SYSTEM } from "envroll/internal/tasksets/code-golf/index.ts";
import { ALL_SPECS, type GolfSpec } from "envroll/internal/tasksets/code-golf/specs.ts";
import { parseChatPrompt } from "../chat-prompt.ts";
import { offeredTools, toolName } from "./tool-names.ts";
import type { ReferenceSolver } from "./types.ts";

const fence = (program: string) => `\`\`\`python\n${program}\n\`\`\``;

/** A Python string literal for `s` (JSON escapes are valid Python for the ASCII outputs here). */
const pyLiteral = (s: string) => JSON.stringify(s);

const HEREDOC = /cat > solution\.py << 'EOF'\n([\s\S]*?)\nEOF\n/;
const TOOL_CALL = /<tool_call>\s*([\s\S]*?)\s*<\/tool_call>/g;
const TOOL_RESPONSE = /<tool_response>\n?([\s\S]*?)\n?<\/tool_response>/;
const FIX_RATE = 0.6;

function findSpec(promptText: string): GolfSpec | null {
  const m = /\n\nPrint ([\s\S]*?)\.\s*(?:<\|im_end\|>|$)/.exec(promptText);
  return m ? (ALL_SPECS.find((s) => s.description === m[1]) ?? null) : null;
}

type Attempt = { kind: "program"; program: string; preface: string } | { kind: "prose"; text: string };

function firstAttempt(spec: GolfSpec, rng: Rng): Attempt {
  const u = rng();
  const program = (p: string, preface = ""): Attempt => ({ kind: "program", program: p, preface });
  if (u < 0.55) return program(spec.solution);
  if (u < 0.7)
    return program(
      `result = ${pyLiteral(spec.expected)}\nprint(result)`,
      "Here is a straightforward version:\n",
    );
  if (u < 0.85) return program(`print(${pyLiteral(`${spec.expected}?`)})`);
  if (u < 0.95) return program(`${spec.solution}\nraise SystemExit(1)`);
  return { kind: "prose", text: "I am not sure how to solve this one." };
}

/** The programs already run through bash, in order, and the output of the last run. */
function runsSoFar(promptText: string, bash: string): { programs: string[]; lastOutput: string | null } {
  const programs: string[] = [];
  let lastOutput: string | null = null;
  for (const turn of parseChatPrompt(promptText)) {
    if (turn.role === "assistant")
      for (const m of turn.content.matchAll(TOOL_CALL)) {
        try {
          const call = JSON.parse(m[1]!) as { name?: string; arguments?: { command?: string } };
          const program = call.name === bash ? HEREDOC.exec(call.arguments?.command ?? "")?.[1] : undefined;
          if (program !== undefined) programs.push(program);
        } catch {
          // Not one of ours.
        }
      }
    else if (turn.role === "user" && programs.length > 0) {
      const out = TOOL_RESPONSE.exec(turn.content);
      if (out) lastOutput = out[1]!;
    }
  }
  return { programs, lastOutput };
}

function runWithBash(bash: string, program: string, say: string): string {
  const command = `cat > solution.py << 'EOF'\n${program}\nEOF\npython3 solution.py`;
  return `${say}\n<tool_call>\n${JSON.stringify({ name: bash, arguments: { command } })}\n</tool_call>`;
}

export const codeGolfSolver: ReferenceSolver = {
  name: "code-golf",
  matches: (promptText) => promptText.includes(SYSTEM),
  solve(promptText, rng: Rng) {
    const spec = findSpec(promptText);
    if (!spec) return fence("print()");
    const bash = toolName(offeredTools(promptText), "bash");
    if (!bash) {
      const a = firstAttempt(spec, rng);
      return a.kind === "prose" ? a.text : `${a.preface}${fence(a.program)}`;
    }
    const { programs, lastOutput } = runsSoFar(promptText, bash);
    const last = programs.at(-1);
    if (last === undefined) {
      const a = firstAttempt(spec, rng);
      return a.kind === "prose" ? a.text : runWithBash(bash, a.program, `${a.preface}Let me run it first.`);
    }
    const passed = (lastOutput ?? "").trim() === spec.expected;
    if (!passed && programs.length < 2 && rng() < FIX_RATE)
      return runWithBash(bash, spec.solution, "The output is wrong; trying another program.");
    return `${passed ? "It prints the expected output." : "Here is my program."}\n${fence(last)}`;
  },
};
