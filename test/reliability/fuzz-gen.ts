/**
 * Seeded generator of malformed model output: token-id sequences biased toward the tokens that
 * drive parsing (`<tool_call>`, `</tool_call>`, `<think>`, `</think>`, `<|im_end|>`), JSON-ish
 * fragments (half-open objects, bad escapes, NaN, duplicate keys), and arbitrary ids — including
 * ids past the tokenizer's vocabulary that a real model's larger embedding table can still emit.
 */
import { mulberry32, type Rng } from "../../packages/core/src/random.ts";
import type { Tokenizer } from "../../packages/core/src/tokenizer/index.ts";

export const TOOL_CALL = 151657;
export const TOOL_CALL_END = 151658;
export const THINK = 151667;
export const THINK_END = 151668;
export const IM_END = 151645;
export const IM_START = 151644;
export const ENDOFTEXT = 151643;
/** Qwen3's embedding table is larger than its tokenizer (151,669 ids): 151,936 rows. */
const MODEL_VOCAB = 151_936;

const SPECIALS = [TOOL_CALL, TOOL_CALL_END, THINK, THINK_END, IM_END, IM_END, IM_START, ENDOFTEXT];

const FRAGMENTS = [
  '{"name": "',
  '", "arguments": ',
  '{"name": "calculator", "arguments": {"expression": "1+2"}}',
  '{"name": "lookup", "arguments": "{\\"x\\": 1}"}',
  '{"name": 5, "arguments": []}',
  '{"arguments": {}}',
  '{"name": "a", "name": "b", "arguments": {"k": NaN, "j": -Infinity}}',
  '{"name": "calculator", "arguments": {"x": 1}, "arguments": {"y": 2.50}}',
  "{",
  "}",
  "[",
  "]",
  '"',
  ":",
  ",",
  "\\u12",
  "\\ud800",
  "\\",
  "null",
  "1e999",
  "-0",
  "true",
  "\n",
  " ",
  "</tool_call",
  "<tool_call>",
  "<think>",
  "💥",
  "ok",
  "The answer is 42.",
];

const WHOLE_CALL_BODIES = [
  '{"name": "calculator", "arguments": {"expression": "6*7"}}',
  '{"name": "calculator", "arguments": {"x": 1}, "arguments": {"y": 2.50}}',
  '{"name": "calculator", "arguments": {"v": NaN, "w": 1e400, "u": "\\ud83d\\ude00"}}',
  '{"arguments": {"a": [1, {"b": null}]}, "name": "lookup"}',
  '{"name": "lookup", "arguments": "{\\"q\\": 1}"}',
  '{"name": "calculator", "arguments": {}, "extra": true}',
  '{"name": ["x"], "arguments": 7}',
];

export interface FuzzCase {
  ids: number[];
  /** A valid tool call was planted (so `ok` statuses are exercised, not only failures). */
  planted: boolean;
}

export class FuzzGenerator {
  private readonly rng: Rng;
  private readonly fragmentIds: number[][];
  private readonly wholeCalls: number[][];

  constructor(tokenizer: Tokenizer, seed: number) {
    this.rng = mulberry32(seed);
    this.fragmentIds = FRAGMENTS.map((f) => tokenizer.encode(f));
    // Whole blocks with a complete JSON body, so `ok` calls (and their odd spellings) are common.
    this.wholeCalls = WHOLE_CALL_BODIES.map((body) => [
      TOOL_CALL,
      ...tokenizer.encode(`\n${body}\n`),
      TOOL_CALL_END,
    ]);
  }

  private int(n: number): number {
    return Math.floor(this.rng() * n);
  }

  next(): FuzzCase {
    const ids: number[] = [];
    const len = this.int(this.rng() < 0.9 ? 24 : 160);
    let planted = false;
    while (ids.length < len) {
      const r = this.rng();
      if (r < 0.3) ids.push(SPECIALS[this.int(SPECIALS.length)]!);
      else if (r < 0.65) ids.push(...this.fragmentIds[this.int(this.fragmentIds.length)]!);
      else if (r < 0.7) {
        ids.push(...this.wholeCalls[this.int(this.wholeCalls.length)]!);
        planted = true;
      } else if (r < 0.98) ids.push(this.int(ENDOFTEXT));
      else ids.push(ENDOFTEXT + this.int(MODEL_VOCAB - ENDOFTEXT));
    }
    // Most real completions end with the stop token; some are cut (length) or aborted.
    if (this.rng() < 0.6) ids.push(IM_END);
    return { ids, planted };
  }
}
