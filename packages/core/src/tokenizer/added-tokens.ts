/**
 * Added tokens (`<|im_end|>`, `<tool_call>`, `<think>`, …) are matched in raw text before
 * normalization and BPE, leftmost-longest, exactly as HF's AddedVocabulary does. This is why a
 * literal "<|im_end|>" typed by a user becomes the special id: HF does the same.
 */

export interface AddedTokenJson {
  id: number;
  content: string;
  special: boolean;
  lstrip?: boolean;
  rstrip?: boolean;
  single_word?: boolean;
  normalized?: boolean;
}

export class AddedTokenMatcher {
  private readonly pattern: RegExp | null;
  private readonly allContainLt: boolean;
  readonly idByContent: Map<string, number>;

  constructor(tokens: readonly AddedTokenJson[]) {
    this.idByContent = new Map(tokens.map((t) => [t.content, t.id]));
    for (const t of tokens) {
      if (t.lstrip || t.rstrip || t.single_word) {
        throw new Error(`added token ${t.content}: lstrip/rstrip/single_word are not supported`);
      }
    }
    // Longest first so the regex alternation (leftmost, first alternative wins) is leftmost-longest.
    const sorted = [...this.idByContent.keys()].sort((a, b) => b.length - a.length);
    this.pattern = sorted.length ? new RegExp(sorted.map(escapeRegExp).join("|"), "g") : null;
    this.allContainLt = sorted.every((c) => c.includes("<"));
  }

  /**
   * True when every scan of `x + content + y` matches `content` as one token where it stands and
   * then scans `y` exactly as it would scan `y` alone, for any x and y: `content` is an added
   * token, none is longer and starts with it, and none overlaps its start from the left (no
   * suffix of another token is a prefix of `content` + anything). The scan is leftmost-longest
   * with no look-behind, so after `content` it restarts as if from the beginning of `y`.
   */
  splitsAt(content: string): boolean {
    if (!this.idByContent.has(content)) return false;
    for (const t of this.idByContent.keys()) {
      if (t === content) continue;
      for (let k = 0; k < t.length; k++) {
        const rest = t.slice(k);
        if (rest.startsWith(content) || (k > 0 && content.startsWith(rest))) return false;
      }
    }
    return true;
  }

  /**
   * Writes the spans of `text` into `out` (cleared first) as `[start, end, id]` triples, in
   * order: `id` is the added token's, or -1 for a plain-text span. Offsets are UTF-16 indices
   * into `text`. A flat reused array, not callbacks: this runs once per render.
   */
  split(text: string, out: number[]): void {
    out.length = 0;
    let last = 0;
    // Cheap pre-check: when every added token contains "<", text without one has no match.
    if (this.pattern && (!this.allContainLt || text.indexOf("<") >= 0)) {
      const re = this.pattern;
      re.lastIndex = 0;
      for (let m = re.exec(text); m !== null; m = re.exec(text)) {
        if (m.index > last) out.push(last, m.index, -1);
        const end = m.index + m[0].length;
        out.push(m.index, end, this.idByContent.get(m[0])!);
        last = end;
      }
    }
    if (last < text.length) out.push(last, text.length, -1);
  }
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
