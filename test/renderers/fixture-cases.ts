/**
 * Loads Qwen3 golden cases (the shared visible battery plus our extra HF-generated ones) and
 * turns each into the expectations envroll must meet: HF ids where HF is the authority, the
 * Python renderer's ids/attribution/parse/bridge records otherwise.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseJsonKeepingFloats } from "../../packages/core/src/renderers/py-json.ts";
import { Qwen3Renderer } from "../../packages/core/src/renderers/qwen3.ts";
import { sharedFixturePath } from "../shared-fixtures.ts";

const here = dirname(fileURLToPath(import.meta.url));
export const SHARED_FIXTURE = sharedFixturePath("qwen3_visible.json");
export const EXTRA_DIR = join(here, "fixtures-extra");

export type Case = Record<string, any>;

export function loadCases(): { source: string; cases: Case[] }[] {
  const files: string[] = [];
  if (existsSync(SHARED_FIXTURE)) files.push(SHARED_FIXTURE);
  if (existsSync(EXTRA_DIR)) {
    for (const f of readdirSync(EXTRA_DIR).sort()) if (f.endsWith(".json")) files.push(join(EXTRA_DIR, f));
  }
  return files.map((f) => ({
    source: f,
    cases: (parseJsonKeepingFloats(readFileSync(f, "utf8")) as { cases: Case[] }).cases,
  }));
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
