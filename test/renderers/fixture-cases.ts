/**
 * Loads the Qwen3 golden cases (the visible battery made with the Python `renderers` package,
 * plus the extra HF-generated ones) and turns each into the expectations envroll must meet: HF
 * ids where HF is the authority, the Python renderer's ids/attribution/parse/bridge records
 * otherwise.
 */
import { Qwen3Renderer } from "../../packages/core/src/renderers/qwen3/renderer.ts";
import { readFixtureKeepingFloats } from "../fixtures.ts";

/** Both are required: a missing one fails loudly instead of shrinking the suite. */
export const QWEN3_FIXTURES = ["qwen3_visible.json", "qwen3_extra.json"];

export type Case = Record<string, any>;

export function loadCases(dir?: string): { source: string; cases: Case[] }[] {
  return QWEN3_FIXTURES.map((f) => ({ source: f, cases: casesOf(f, dir) }));
}

export function casesOf(name: string, dir?: string): Case[] {
  return readFixtureKeepingFloats(name, dir).cases as Case[];
}

export function rendererFor(c: Case): Qwen3Renderer {
  const cfg = c.renderer_config ?? {};
  return new Qwen3Renderer({
    enableThinking: cfg.enable_thinking ?? true,
    preserveAllThinking: cfg.preserve_all_thinking ?? false,
    preserveThinkingBetweenToolCalls: cfg.preserve_thinking_between_tool_calls ?? false,
  });
}

/** The ids envroll must produce for a render case (fixtures README, "What envroll must match"). */
export function expectedRenderIds(c: Case): number[] {
  const cfg = c.renderer_config ?? {};
  const rendererOnly = cfg.preserve_all_thinking || cfg.preserve_thinking_between_tool_calls;
  if (c.hf?.error == null && c.hf?.token_ids && !rendererOnly) return c.hf.token_ids;
  return c.renderer.token_ids;
}

/** Plain JSON view (PyFloat → number) for deep comparisons against fixture records. */
export function plain<T>(x: T): T {
  return JSON.parse(JSON.stringify(x, (_k, v) => (typeof v === "bigint" ? Number(v) : v)));
}
