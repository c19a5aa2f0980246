/**
 * The pre-tokenizer tree of tokenizer.json as a list of piece steps. Supported: `Sequence`,
 * `Split` (a `Regex` or literal `String` pattern, any behaviour) and `ByteLevel` (which marks
 * the model byte-level and, with `use_regex`, splits with the GPT-2 pattern). Anything else —
 * and `add_prefix_space`, which no supported family uses — is refused by name.
 */
import {
  compileSplitPattern,
  GPT2_PATTERN,
  type PieceStep,
  type SplitBehavior,
  splitStep,
} from "./pretokenize.ts";

const BEHAVIORS = new Set(["Isolated", "Removed", "MergedWithPrevious", "MergedWithNext", "Contiguous"]);

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");
}

export function buildPreTokenizer(json: unknown): { steps: PieceStep[]; byteLevel: boolean } {
  const steps: PieceStep[] = [];
  let byteLevel = false;
  const visit = (node: Record<string, unknown> | null) => {
    if (!node) return;
    switch (node.type) {
      case "Sequence":
        for (const child of node.pretokenizers as Record<string, unknown>[]) visit(child);
        return;
      case "Split": {
        const pattern = node.pattern as { Regex?: string; String?: string };
        const behavior = String(node.behavior);
        if (!BEHAVIORS.has(behavior)) throw new Error(`unsupported Split behavior ${behavior}`);
        const re =
          typeof pattern?.Regex === "string"
            ? compileSplitPattern(pattern.Regex)
            : typeof pattern?.String === "string"
              ? new RegExp(escapeRegExp(pattern.String), "gv")
              : null;
        if (!re) throw new Error("Split pre-tokenizer without a Regex or String pattern");
        steps.push(splitStep(re, behavior as SplitBehavior, node.invert === true));
        return;
      }
      case "ByteLevel":
        if (node.add_prefix_space) throw new Error("ByteLevel add_prefix_space is not supported");
        byteLevel = true;
        if (node.use_regex) steps.push(splitStep(compileSplitPattern(GPT2_PATTERN), "Isolated", false));
        return;
      default:
        throw new Error(`unsupported pre-tokenizer ${String(node.type)}`);
    }
  };
  visit(json as Record<string, unknown> | null);
  return { steps, byteLevel };
}
