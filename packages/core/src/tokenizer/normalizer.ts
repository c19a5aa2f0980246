/**
 * Normalizers from tokenizer.json. Supported: none, `NFC` (HF's own NFC, see nfc.ts), literal
 * `Replace` whose replacement has the pattern's length (Gemma's " " → "▁"), and `Sequence`s of
 * these. `remap` says whether offsets computed on the normalized text need mapping back (NFC can
 * change lengths; a same-length Replace cannot).
 */
import { hfNfc } from "./nfc.ts";

export type Normalizer = (raw: string) => { text: string; remap: boolean };

type Step = { apply: (s: string) => string; remap: boolean };

function step(node: Record<string, unknown>): Step[] {
  switch (node.type) {
    case "NFC":
      return [{ apply: hfNfc, remap: true }];
    case "Replace": {
      const pattern = (node.pattern as { String?: string })?.String;
      const content = node.content;
      if (typeof pattern !== "string" || typeof content !== "string")
        throw new Error("normalizer Replace: only a literal String pattern is supported");
      if (pattern.length !== content.length)
        throw new Error("normalizer Replace: the replacement must have the pattern's length");
      return [{ apply: (s) => (s.includes(pattern) ? s.replaceAll(pattern, content) : s), remap: false }];
    }
    case "Sequence":
      return (node.normalizers as Record<string, unknown>[]).flatMap(step);
    default:
      throw new Error(`unsupported normalizer ${String(node.type)}`);
  }
}

export function buildNormalizer(json: unknown): Normalizer {
  const steps = json ? step(json as Record<string, unknown>) : [];
  if (steps.length === 0) return (raw) => ({ text: raw, remap: false });
  const remap = steps.some((s) => s.remap);
  return (raw) => {
    let text = raw;
    for (const s of steps) text = s.apply(text);
    return { text, remap };
  };
}
