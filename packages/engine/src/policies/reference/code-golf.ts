/**
 * code-golf: find the problem by its description and answer with its reference program — or,
 * under seeded noise, a longer correct one, a wrong one, a crashing one, or prose without a
 * code block — so a group's correct/most_concise/fastest rewards actually differ. When the
 * prompt offers a `bash` tool (the coding agent), the program is written and run first; a run
 * whose output is wrong is usually followed by one more try with the reference program.
 */

import type { Rng } from "envroll/internal/random.ts";
import { SYSTEM } from "envroll/internal/tasksets/code-golf/index.ts";
import { ALL_SPECS, type GolfSpec } from "envroll/internal/tasksets/code-golf/specs.ts";
import type { ChatMessage, ReferenceTurn } from "../../types.ts";
import { toolName } from "./tool-names.ts";
import { carries, type ReferenceSolver, type SolverInput } from "./types.ts";

const fence = (program: string) => `\`\`\`python\n${program}\n\`\`\``;

/** A Python string literal for `s` (JSON escapes are valid Python for the ASCII outputs here). */
const pyLiteral = (s: string) => JSON.stringify(s);

const HEREDOC = /cat > solution\.py << 'EOF'\n([\s\S]*?)\nEOF\n/;
/** The task prompt ends `…\n\nPrint DESCRIPTION.` (a template that folds the system prompt in may start with it). */
const DESCRIPTION = /(?:^|\n\n)Print ([\s\S]*?)\.\s*$/;
const FIX_RATE = 0.6;

function findSpec(messages: readonly ChatMessage[]): GolfSpec | null {
  for (const m of messages) {
    const d = m.role === "user" ? DESCRIPTION.exec(m.content)?.[1] : undefined;
    const spec = d === undefined ? undefined : ALL_SPECS.find((s) => s.description === d);
    if (spec) return spec;
  }
  return null;
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
function runsSoFar(messages: readonly ChatMessage[], bash: string) {
  const programs: string[] = [];
  let lastOutput: string | null = null;
  for (const m of messages) {
    if (m.role === "assistant")
      for (const call of m.tool_calls ?? []) {
        const command = (call.arguments as { command?: unknown } | null)?.command;
        const program =
          call.name === bash && typeof command === "string" ? HEREDOC.exec(command)?.[1] : undefined;
        if (program !== undefined) programs.push(program);
      }
    else if (m.role === "tool" && programs.length > 0) lastOutput = m.content;
  }
  return { programs, lastOutput };
}

const say = (content: string): ReferenceTurn => ({ content, tool_calls: [] });

function runWithBash(bash: string, program: string, content: string): ReferenceTurn {
  const command = `cat > solution.py << 'EOF'\n${program}\nEOF\npython3 solution.py`;
  return { content, tool_calls: [{ name: bash, arguments: { command } }] };
}

export const codeGolfSolver: ReferenceSolver = {
  name: "code-golf",
  matches: (input) => carries(input, SYSTEM),
  solve({ messages, tools }: SolverInput, rng: Rng) {
    const spec = findSpec(messages);
    if (!spec) return say(fence("print()"));
    const bash = toolName(tools, "bash");
    if (!bash) {
      const a = firstAttempt(spec, rng);
      return say(a.kind === "prose" ? a.text : `${a.preface}${fence(a.program)}`);
    }
    const { programs, lastOutput } = runsSoFar(messages, bash);
    const last = programs.at(-1);
    if (last === undefined) {
      const a = firstAttempt(spec, rng);
      return a.kind === "prose"
        ? say(a.text)
        : runWithBash(bash, a.program, `${a.preface}Let me run it first.`);
    }
    const passed = (lastOutput ?? "").trim() === spec.expected;
    if (!passed && programs.length < 2 && rng() < FIX_RATE)
      return runWithBash(bash, spec.solution, "The output is wrong; trying another program.");
    return say(`${passed ? "It prints the expected output." : "Here is my program."}\n${fence(last)}`);
  },
};
