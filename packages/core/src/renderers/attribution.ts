/**
 * Tokenize-with-attribution: the rendered text is built as a list of segments, each tagged with
 * its source message and whether it is sampled / body content; the joined text is tokenized in
 * ONE pass (so BPE merges across wrap/body boundaries are exactly HF's) and every token is
 * attributed to the segment that holds its first character. A token starting exactly on a
 * boundary belongs to the later segment; that is the rule of the Python `renderers` library
 * (`attribute_text_segments`), so attribution agrees with it wherever the ids agree.
 */
import type { Tokenizer } from "../tokenizer/index.ts";
import type { TokenAttribution } from "./renderer.ts";

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
      tokenizeGroup(tokenizer, segments.slice(from, i), out);
      from = i;
    }
  }
  return out;
}

function tokenizeGroup(tokenizer: Tokenizer, segments: readonly Segment[], out: TokenAttribution): void {
  if (segments.length === 0) return;
  const text = segments.length === 1 ? segments[0]!.text : segments.map((s) => s.text).join("");
  const enc = tokenizer.encodeWithOffsets(text);
  const n = enc.ids.length;
  // Sized once per group (usually the only one): pushing grew each of the four arrays several
  // times per render.
  const messageIndices = new Array<number>(n);
  const sampledMask = new Array<boolean>(n);
  const isContent = new Array<boolean>(n);
  let seg = 0;
  let segEnd = segments[0]!.text.length;
  for (let t = 0; t < n; t++) {
    const start = enc.starts[t]!;
    // Starts never decrease, so a forward walk finds the holder in amortized O(1).
    while (start >= segEnd && seg < segments.length - 1) {
      seg++;
      segEnd += segments[seg]!.text.length;
    }
    const s = segments[seg]!;
    messageIndices[t] = s.messageIndex;
    sampledMask[t] = s.sampled;
    isContent[t] = s.content;
  }
  if (out.tokenIds.length === 0) {
    // The first group's arrays become the result (the encoding's ids are its own).
    out.tokenIds = enc.ids;
    out.messageIndices = messageIndices;
    out.sampledMask = sampledMask;
    out.isContent = isContent;
    return;
  }
  for (let t = 0; t < n; t++) {
    out.tokenIds.push(enc.ids[t]!);
    out.messageIndices.push(messageIndices[t]!);
    out.sampledMask.push(sampledMask[t]!);
    out.isContent.push(isContent[t]!);
  }
}
