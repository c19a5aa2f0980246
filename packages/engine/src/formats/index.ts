/**
 * The chat formats the engine can read back, by renderer family (`TemplateIdentity.family`).
 */
import { deepseekV3Format } from "./deepseek-v3.ts";
import type { ChatFormat } from "./format.ts";
import { gemma3Format } from "./gemma3.ts";
import { harmonyFormat } from "./harmony.ts";
import { llama3Format } from "./llama3.ts";
import { qwen3Format } from "./qwen3.ts";

export type { ChatFormat } from "./format.ts";
export { chatMessages, formatReferenceTurn, parseChatPrompt, qwen3Format } from "./qwen3.ts";

const FORMATS: readonly ChatFormat[] = [
  qwen3Format,
  deepseekV3Format,
  llama3Format,
  gemma3Format,
  harmonyFormat,
];

/** Families whose prompts the engine's policies can read. */
export const FORMAT_FAMILIES: readonly string[] = FORMATS.map((f) => f.family);

export function chatFormatFor(family: string | null): ChatFormat | null {
  return FORMATS.find((f) => f.family === family) ?? null;
}
