/**
 * Writes packages/core/data/tokenizer/hf-unicode-exceptions.json: HF's `\s` and case folds
 * and NFC's quick-check runs (from hf-unicode.json) and this Node's Unicode-class exceptions (HF's classes vs the runtime's
 * `\p{…}`) under its Unicode version, all as ranges, so loading a tokenizer need not read
 * hf-unicode.json or compute the exceptions. Entries of other Unicode versions are kept. Run
 * after gen_hf_unicode.py or on a new Node release:
 *   node --import tsx test/tokenizer/gen-unicode-exceptions.ts
 * test/tokenizer/unicode-classes.test.ts fails while the file is out of date.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { computeTouchRuns } from "../../packages/core/src/tokenizer/nfc.ts";
import {
  type ClassExceptions,
  computeClassExceptions,
  hfRecordedParts,
  type RecordedUnicode,
} from "../../packages/core/src/tokenizer/unicode-classes.ts";

const path = new URL("../../packages/core/data/tokenizer/hf-unicode-exceptions.json", import.meta.url);
const old: Partial<RecordedUnicode> = existsSync(path) ? JSON.parse(readFileSync(path, "utf8")) : {};
const entry: Record<string, ClassExceptions> = {};
for (const name of ["L", "N", "P", "S", "M", "Lu", "Ll", "Lt", "Lm", "Lo"] as const)
  entry[name] = computeClassExceptions(name);
const recorded: RecordedUnicode = {
  ...hfRecordedParts(),
  exceptions: { ...old.exceptions, [process.versions.unicode ?? "unknown"]: entry },
  nfc_touch: computeTouchRuns(),
};
writeFileSync(path, `${JSON.stringify(recorded)}\n`);
console.log(
  `recorded HF's \\s, case folds and NFC quick-check runs, and Unicode ${process.versions.unicode} exceptions`,
);
