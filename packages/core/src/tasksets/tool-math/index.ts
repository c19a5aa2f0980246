/**
 * tool-math — multi-step arithmetic and unit-conversion word problems solved with tools
 * (`calculate`, `convert`; zod-defined, see tools.ts). Multi-turn under the `default` harness,
 * which executes the calls; reward `correct` checks the final `<answer>` against the plan's
 * result; metric `tool_calls` counts the calls made. Tasks are generated from seeded templates
 * (problems.ts): `size` tasks from `seed`.
 */
import { z } from "zod";
import { mulberry32 } from "../../random.ts";
import { defineTaskset } from "../../task.ts";
import { TaskDataSchema } from "../../types.ts";
import { isCorrect, parseAnswer } from "./answer.ts";
import { solve, TEMPLATES } from "./problems.ts";
import { TOOLS } from "./tools.ts";

export const SYSTEM =
  "Solve the problem with the tools: use `calculate` for arithmetic and `convert` for unit conversions instead of computing in your head, one step at a time. When you have the result, reply with the final answer rounded to 2 decimal places inside <answer></answer> tags, e.g. <answer>12.35</answer>.";

export const ToolMathConfigSchema = z.strictObject({
  id: z.string().optional(),
  task: z.unknown().optional(),
  /** Number of generated tasks. */
  size: z.number().int().positive().default(500),
  seed: z.number().int().default(0),
});
export type ToolMathConfig = z.infer<typeof ToolMathConfigSchema>;

export const ToolMathDataSchema = TaskDataSchema.extend({
  idx: z.number().int().default(0),
  prompt: z.string(),
  system_prompt: z.string().default(SYSTEM),
  answer: z.number(),
  kind: z.string().default(""),
  /** Tool calls the reference plan needs (for analysis; not a requirement). */
  plan_calls: z.number().int().default(0),
});
export type ToolMathData = z.output<typeof ToolMathDataSchema>;

export async function generateTasks(size: number, seed: number): Promise<ToolMathData[]> {
  const rng = mulberry32(seed ^ 0x70011);
  const tasks: ToolMathData[] = [];
  for (let idx = 0; idx < size; idx++) {
    const template = TEMPLATES[idx % TEMPLATES.length]!;
    const params = template.generate(rng);
    const { answer, calls } = await solve(template, params);
    tasks.push({
      idx,
      prompt: template.question(params),
      system_prompt: SYSTEM,
      answer,
      kind: template.kind,
      plan_calls: calls,
    });
  }
  return tasks;
}

export default defineTaskset<ToolMathData, ToolMathConfig>({
  id: "tool-math",
  description:
    "Multi-step arithmetic and unit conversions with calculate/convert tools; answer in <answer> tags.",
  configSchema: ToolMathConfigSchema,
  dataSchema: ToolMathDataSchema,
  defaults: { harness: { id: "default" }, max_turns: 10 },
  load(config) {
    const { size, seed } = ToolMathConfigSchema.parse(config ?? {});
    return generateTasks(size, seed);
  },
  tools: TOOLS,
  // Under the coding agent (`default`) and over MCP the tools are `math_calculate`, `math_convert`.
  toolPrefix: "math",
  metrics: [
    {
      name: "tool_calls",
      fn: ({ trace }) =>
        trace.messages.reduce((n, m) => n + (m.role === "assistant" ? (m.tool_calls?.length ?? 0) : 0), 0),
    },
  ],
  rewards: [
    {
      name: "correct",
      weight: 1.0,
      fn: ({ task, trace }) => (isCorrect(parseAnswer(trace.lastReply), task.answer) ? 1 : 0),
    },
  ],
});
