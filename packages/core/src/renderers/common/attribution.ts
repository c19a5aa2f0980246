/**
 * Tokenize-with-attribution: the rendered text is built as a list of segments, each tagged with
 * its source message and whether it is sampled / body content; the joined text is tokenized in
 * ONE pass (so BPE merges across wrap/body boundaries are exactly HF's) and every token is
 * attributed to the segment that holds its first character. A token starting exactly on a
 * boundary belongs to the later segment; that is the rule of the Python `renderers` library
 * (`attribute_text_segments`), so attribution agrees with it wherever the ids agree.
 */
import type { Tokenizer } from "../../tokenizer/index.ts";
import type { TokenAttribution } from "../renderer.ts";

export interface Segment {
  text: string;
  messageIndex: number;
  sampled: boolean;
  content: boolean;
  /** Tokenize this segment's text apart from what precedes it (no BPE merge across). */
  breakBefore?: boolean;
}

/** Collects segments, merging neighbours with identical attribution (fewer boundaries to walk). */
export class SegmentList {
  readonly segments: Segment[] = [];

  push(text: string, messageIndex: number, sampled: boolean, content: boolean, breakBefore = false): void {
    if (text.length === 0) return;
    const last = this.segments[this.segments.length - 1];
    if (breakBefore) {
      this.segments.push({ text, messageIndex, sampled, content, breakBefore });
      return;
    }
    if (
      last !== undefined &&
      last.messageIndex === messageIndex &&
      last.sampled === sampled &&
      last.content === content
    ) {
      last.text += text;
      return;
    }
    this.segments.push({ text, messageIndex, sampled, content });
  }
}

export type { TokenAttribution };

/**
 * Encodes the joined segments once (once per `breakBefore` group) and attributes each token by
 * its start offset.
 */
export function tokenizeSegments(tokenizer: Tokenizer, segments: readonly Segment[]): TokenAttribution {
  const out: TokenAttribution = { tokenIds: [], messageIndices: [], sampledMask: [], isContent: [] };
  let from = 0;
  for (let i = 1; i <= segments.length; i++) {
    if (i === segments.length || segments[i]!.breakBefore) {
      tokenizeGroup(tokenizer, segments, from, i, out);
      from = i;
    }
  }
  return out;
}

/** Segments [from, to) as one encoding, appended to `out`. */
function tokenizeGroup(
  tokenizer: Tokenizer,
  segments: readonly Segment[],
  from: number,
  to: number,
  out: TokenAttribution,
): void {
  if (to <= from) return;
  const text = to - from === 1 ? segments[from]!.text : joinTexts(segments, from, to);
  const { ids, starts } = tokenizer.encodeWithStarts(text);
  const n = ids.length;
  const first = out.tokenIds.length === 0;
  // The first group (usually the only one) sizes the result's arrays exactly and keeps the
  // encoding's ids; later groups append.
  const base = first ? 0 : out.tokenIds.length;
  const messageIndices = first ? new Array<number>(n) : out.messageIndices;
  const sampledMask = first ? new Array<boolean>(n) : out.sampledMask;
  const isContent = first ? new Array<boolean>(n) : out.isContent;
  let seg = from;
  let segEnd = segments[from]!.text.length;
  let s = segments[from]!;
  for (let t = 0; t < n; t++) {
    const start = starts[t]!;
    // Starts never decrease, so a forward walk finds the holder in amortized O(1).
    if (start >= segEnd) {
      while (start >= segEnd && seg < to - 1) {
        seg++;
        segEnd += segments[seg]!.text.length;
      }
      s = segments[seg]!;
    }
    messageIndices[base + t] = s.messageIndex;
    sampledMask[base + t] = s.sampled;
    isContent[base + t] = s.content;
  }
  if (first) {
    out.tokenIds = ids;
    out.messageIndices = messageIndices;
    out.sampledMask = sampledMask;
    out.isContent = isContent;
    return;
  }
  for (let t = 0; t < n; t++) out.tokenIds.push(ids[t]!);
}

/** The segments' texts joined; one concatenation chain, flattened once by the tokenizer. */
function joinTexts(segments: readonly Segment[], from: number, to: number): string {
  let text = "";
  for (let i = from; i < to; i++) text += segments[i]!.text;
  return text;
}
