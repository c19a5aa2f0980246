/**
 * The agent-shape workload (bench/agent-shape.ts): what a coding agent's episode looks like to
 * envroll. A ~20k-token first request (a long system prompt and a large tool set, as coding
 * CLIs send), then one tool call per model turn whose result adds a fixed amount of fresh text,
 * so the context grows by the same number of tokens every turn (to ~50k by turn 100).
 *
 * Both halves live here so they cannot drift apart: the agent side (the texts the driver sends)
 * and the engine policy that plays the model (it reads only the last message: the step number
 * the previous tool result reports).
 */
import { mulberry32 } from "../../packages/core/src/random.ts";
import type { PolicyFn } from "../../packages/engine/src/types.ts";
import { sentence } from "./corpus.ts";

const MARKER = "AGENT-SHAPE";
const STEP = /\[agent-shape step (\d+)\]/g;

/** A tool in the neutral shape every dialect maps from (name, description, JSON schema). */
export interface ShapeTool {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** The system prompt: ~`words` dataset words in paragraphs (coding agents ship ~10-15k tokens). */
export function systemPrompt(words: number): string {
  const r = mulberry32(11);
  const paras: string[] = [`You are a coding agent (${MARKER}). Use the tools; be precise.`];
  for (let n = 0; n < words; n += 60) paras.push(sentence(r, 60));
  return paras.join("\n\n");
}

/** `count` tools with long descriptions, the first one `exec_command` (the one the model calls). */
export function shapeTools(count: number, descriptionWords: number): ShapeTool[] {
  const r = mulberry32(23);
  return Array.from({ length: count }, (_, i) => ({
    name: i === 0 ? "exec_command" : `tool_${i}`,
    description: sentence(r, descriptionWords),
    parameters: {
      type: "object",
      properties: {
        cmd: { type: "string", description: sentence(r, 12) },
        workdir: { type: "string", description: sentence(r, 8) },
        timeout_ms: { type: "integer", description: sentence(r, 6) },
      },
      required: ["cmd"],
    },
  }));
}

export const taskPrompt = (episode: number) =>
  `${MARKER} task ${episode}: read the repository one chunk at a time with exec_command. [agent-shape step 0]`;

/**
 * Tool output of step k of an episode: fresh words every step (no text repeats, as real tool
 * output), `words` of them, tagged with the step so the policy knows where it is.
 */
export function toolOutput(episode: number, step: number, words: number): string {
  const r = mulberry32(episode * 100_003 + step);
  return `[agent-shape step ${step}] exit 0\n${sentence(r, words)}`;
}

/** The model's turn after `last`: one exec_command call for the next step; null if not ours. */
export function agentShapeTurn(last: string) {
  if (!last.includes("[agent-shape step")) return null;
  const done = [...last.matchAll(STEP)].at(-1);
  const next = Number(done?.[1] ?? 0) + 1;
  return {
    content: `Reading chunk ${next} next.`,
    tool_calls: [
      { name: "exec_command", arguments: { cmd: `sed -n '${next * 40},${next * 40 + 39}p' src/main.ts` } },
    ],
  };
}

/** Engine policy: the agent-shape turn for its prompts, `otherwise` for the rest. */
export const agentShapePolicy =
  (otherwise: PolicyFn): PolicyFn =>
  (ctx) => {
    const turn = agentShapeTurn(ctx.lastMessage?.content ?? "");
    return turn ? { turn } : otherwise(ctx);
  };
