/**
 * code-golf — verifiers 0.2.0 `code-golf-v1`: write the shortest Python program printing an
 * exact output. `evaluate` runs it (metrics `passed`, `latency`), `correct` (w=1) is `passed`,
 * and the group bonuses `most_concise` and `fastest` (w=0.5 each) go to the shortest and the
 * fastest programs — passing ones only unless `bonus_for_failing` (see bonuses.ts). Reward range
 * [0, 2]; groups need num_rollouts ≥ 2. Programs run in the sandbox runtime by default.
 */
import { z } from "zod";
import { defineTaskset, type TraceView } from "../../task.ts";
import { pyLen } from "../../text/python-str.ts";
import { TaskDataSchema } from "../../types.ts";
import { type Contestant, fastest, mostConcise } from "./bonuses.ts";
import { evaluateProgram, NO_PROGRAM_LATENCY } from "./evaluate.ts";
import { extractProgram } from "./program.ts";
import { ALL_SPECS, type GolfSpec, REFERENCE_SPECS } from "./specs.ts";

export const SYSTEM =
  "Write a single self-contained Python program that prints EXACTLY the requested output and nothing else. Put the program in one ```python code block.";

export const CodeGolfConfigSchema = z.strictObject({
  id: z.string().optional(),
  task: z.unknown().optional(),
  /** "reference": only verifiers' three problems; "all": those plus envroll's own. */
  specs: z.enum(["all", "reference"]).default("all"),
  /** Let failing programs win the bonuses, exactly as verifiers 0.2.0 did. */
  bonus_for_failing: z.boolean().default(false),
});
export type CodeGolfConfig = z.infer<typeof CodeGolfConfigSchema>;

/**
 * `bonus_for_failing` rides on each task row: group rewards see only the task, and keeping the
 * rule in the data makes a stored trace re-score the way it was scored.
 */
export const CodeGolfDataSchema = TaskDataSchema.extend({
  idx: z.number().int().default(0),
  name: z.string().nullable().optional(),
  prompt: z.string(),
  system_prompt: z.null().default(null),
  expected: z.string(),
  bonus_for_failing: z.boolean().default(false),
});
export type CodeGolfData = z.output<typeof CodeGolfDataSchema>;

export function promptFor(description: string): string {
  return `${SYSTEM}\n\nPrint ${description}.`;
}

export function makeTask(idx: number, spec: GolfSpec, bonusForFailing = false): CodeGolfData {
  return {
    idx,
    name: spec.name,
    prompt: promptFor(spec.description),
    system_prompt: null,
    expected: spec.expected,
    bonus_for_failing: bonusForFailing,
  };
}

function contestant(t: TraceView): Contestant {
  return {
    length: pyLen(extractProgram(t.lastReply)),
    latency: t.metrics["latency"] ?? NO_PROGRAM_LATENCY,
    passed: t.metrics["passed"] === 1,
  };
}

export default defineTaskset<CodeGolfData, CodeGolfConfig>({
  id: "code-golf",
  description: "Shortest Python program printing an exact output; bonuses for the shortest and fastest.",
  configSchema: CodeGolfConfigSchema,
  dataSchema: CodeGolfDataSchema,
  runtime: { type: "sandbox" },
  defaults: { num_rollouts: 2 },
  load(config) {
    const { specs, bonus_for_failing } = CodeGolfConfigSchema.parse(config ?? {});
    return (specs === "reference" ? REFERENCE_SPECS : ALL_SPECS).map((s, i) =>
      makeTask(i, s, bonus_for_failing),
    );
  },
  metrics: [
    {
      name: "evaluate",
      needsRuntime: true,
      fn: async ({ task, trace, runtime, signal }) => {
        const e = await evaluateProgram(extractProgram(trace.lastReply), task.expected, runtime!, { signal });
        return { passed: e.passed, latency: e.latency };
      },
    },
  ],
  rewards: [
    {
      name: "correct",
      weight: 1.0,
      // It reads the `passed` metric, which exists only when `evaluate` could run.
      needsRuntime: true,
      fn: ({ trace }) => trace.metrics["passed"] ?? 0,
    },
  ],
  groupRewards: [
    {
      name: "most_concise",
      weight: 0.5,
      fn: ({ task, traces }) => mostConcise(traces.map(contestant), task.bonus_for_failing),
    },
    {
      name: "fastest",
      weight: 0.5,
      fn: ({ task, traces }) => fastest(traces.map(contestant), task.bonus_for_failing),
    },
  ],
  async validate() {
    const { spawnSync } = await import("node:child_process");
    const { existsSync } = await import("node:fs");
    const r = spawnSync("python3", ["--version"], { encoding: "utf8" });
    if (r.status !== 0) throw new Error("code-golf needs python3 on PATH");
    // The sandbox mounts only /usr (plus harness.runtime.ro_bind): a python elsewhere is invisible to it.
    if (!existsSync("/usr/bin/python3") && !existsSync("/usr/local/bin/python3"))
      throw new Error(
        "python3 is not under /usr, which is all the sandbox mounts: install it there or add its prefix to harness.runtime.ro_bind",
      );
  },
});
