/**
 * The Unicode data HF `tokenizers` uses (data/tokenizer/hf-unicode.json, written from the Python package over
 * every code point by test/tokenizer/gen_hf_unicode.py). envroll's pre-tokenizer classes and
 * NFC follow it rather than the Unicode version of the running Node: Node 20.20 knows Unicode
 * 17, HF's Oniguruma 16 and its normalizer 15, and every code point they disagree on would give
 * different token ids. Loaded on first use (~60 KB of JSON).
 */
import { readFileSync } from "node:fs";
import { coreDataPath } from "../package-root.ts";

export type ClassName = "L" | "N" | "P" | "S" | "M" | "Lu" | "Ll" | "Lt" | "Lm" | "Lo" | "s";

export interface HfUnicode {
  source: string;
  classes: Record<ClassName, [number, number][]>;
  case_fold: Record<string, number[]>;
  nfd: Record<string, number[]>;
  ccc: Record<string, number>;
  compose: [number, number, number][];
}

let data: HfUnicode | null = null;

export function hfUnicode(): HfUnicode {
  data ??= JSON.parse(readFileSync(coreDataPath("tokenizer", "hf-unicode.json"), "utf8")) as HfUnicode;
  return data;
}
