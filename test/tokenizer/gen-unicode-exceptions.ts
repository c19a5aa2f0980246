/**
 * Records this Node's Unicode-class exceptions (HF's classes vs the runtime's `\p{…}`) in
 * packages/core/data/tokenizer/hf-unicode-exceptions.json, under its Unicode version, so loading a
 * tokenizer need not compute them. Run after gen_hf_unicode.py or on a new Node release:
 *   node --import tsx test/tokenizer/gen-unicode-exceptions.ts
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { computeClassExceptions } from "../../packages/core/src/tokenizer/unicode-classes.ts";

const path = new URL("../../packages/core/data/tokenizer/hf-unicode-exceptions.json", import.meta.url);
const all = existsSync(path) ? JSON.parse(readFileSync(path, "utf8")) : {};
const entry: Record<string, unknown> = {};
for (const name of ["L", "N", "P", "S", "M", "Lu", "Ll", "Lt", "Lm", "Lo"] as const)
  entry[name] = computeClassExceptions(name);
all[process.versions.unicode ?? "unknown"] = entry;
writeFileSync(path, `${JSON.stringify(all)}\n`);
console.log(`recorded Unicode ${process.versions.unicode} exceptions`);
