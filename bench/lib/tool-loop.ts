/**
 * A bench-local multi-turn tool workload: the model calls the `step` tool 7 times, then answers
 * (8 model turns per episode). Both halves live here so they cannot drift apart: the taskset
 * (run by envroll under the `tools` harness, which offers the taskset's tools by their own
 * names — the `default` coding harness prefixes them, and the policy calls `step`) and the
 * engine policy that plays the model.
 *
 * The policy reads only the last message (cheap on the engine side): the task prompt opens the
 * loop and each tool result says which step finished.
 */

import { defineTaskset } from "../../packages/core/src/task.ts";
import type { TaskData } from "../../packages/core/src/types.ts";
import type { PolicyFn } from "../../packages/engine/src/types.ts";

export const TOOL_STEPS = 7;
const MARKER = "BENCH_TOOL_LOOP";
const STEP_DONE_ALL = /bench-step (\d+) done/g;

interface ToolLoopData extends TaskData {
  idx: number;
  prompt: string;
  system_prompt: string;
}

export const toolLoopTaskset = defineTaskset<ToolLoopData>({
  id: "bench-tool-loop",
  description: "Call the step tool 7 times, then answer (benchmark workload).",
  defaults: { harness: { id: "tools" }, max_turns: TOOL_STEPS + 2 },
  load: () =>
    Array.from({ length: 512 }, (_, idx) => ({
      idx,
      prompt: `${MARKER} task ${idx}: walk through the ${TOOL_STEPS} steps of procedure ${idx * 7919} with the step tool, then report.`,
      system_prompt:
        "You are a careful operator. Use the step tool once per step; answer in <answer></answer> tags.",
    })),
  tools: [
    {
      name: "step",
      description: "Run one step of the procedure and return its log.",
      parameters: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
      // A few lines of log per step so the history grows the way real tool output does.
      execute: (args: { n: number }) =>
        `bench-step ${args.n} done: checked ${args.n * 3} items, ${args.n} warnings, elapsed ${(args.n * 0.37).toFixed(2)} s.\n` +
        "log: ok ok ok ok ok ok ok ok ok ok ok ok ok ok ok ok",
    },
  ],
  rewards: [
    { name: "answered", weight: 1, fn: ({ trace }) => (trace.lastReply.includes("<answer>") ? 1 : 0) },
  ],
});

/**
 * The model's next reply given the text at the end of its prompt (the last tool result, or the
 * task prompt on the first turn); null when the text is not part of a bench tool loop.
 */
export function toolLoopReply(last: string): string | null {
  const done = [...last.matchAll(STEP_DONE_ALL)].at(-1);
  const next = done ? Number(done[1]) + 1 : last.includes(MARKER) ? 1 : null;
  if (next === null) return null;
  if (next > TOOL_STEPS) return `All ${TOOL_STEPS} steps are done.\n<answer>done</answer>`;
  return `Running step ${next} of ${TOOL_STEPS} now.\n<tool_call>\n{"name": "step", "arguments": {"n": ${next}}}\n</tool_call>`;
}

/** Engine policy: the tool loop for bench prompts, `otherwise` (the reference policy) for the rest. */
export const toolLoopPolicy =
  (otherwise: PolicyFn): PolicyFn =>
  (ctx) =>
    toolLoopReply(ctx.lastMessage?.content ?? "") ?? otherwise(ctx);
