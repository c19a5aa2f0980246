/**
 * Tokenize-with-attribution: the rendered text is built as a list of segments, each tagged with
 * its source message and whether it is sampled / body content; the joined text is tokenized in
 * ONE pass (so BPE merges across wrap/body boundaries are exactly HF's) and every token is
 * attributed to the segment that holds its first character. A token starting exactly on a
 * boundary belongs to the later segment; that is the rule of the Python `renderers` library
 * (`attribute_text_segments`), so attribution agrees with it wherever the ids agree.
 */
import type { Tokenizer } from "../tokenizer/index.ts";
import type { RenderedTokens } from "./renderer.ts";

export interface Segment {
  text: string;
  messageIndex: number;
  sampled: boolean;
  content: boolean;
}

/** Collects segments, merging neighbours with identical attribution (fewer boundaries to walk). */
export class SegmentList {
  readonly segments: Segment[] = [];

  push(text: string, messageIndex: number, sampled: boolean, content: boolean): void {
    if (text.length === 0) return;
    const last = this.segments[this.segments.length - 1];
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

export type TokenAttribution = Pick<
  RenderedTokens,
  "tokenIds" | "messageIndices" | "sampledMask" | "isContent"
>;

/** Encodes the joined segments once and attributes each token by its start offset. */
export function tokenizeSegments(tokenizer: Tokenizer, segments: readonly Segment[]): TokenAttribution {
  const out: TokenAttribution = { tokenIds: [], messageIndices: [], sampledMask: [], isContent: [] };
  if (segments.length === 0) return out;
  const text = segments.length === 1 ? segments[0].text : segments.map((s) => s.text).join("");
  const enc = tokenizer.encodeWithOffsets(text);
  let seg = 0;
  let segEnd = segments[0].text.length;
  for (let t = 0; t < enc.ids.length; t++) {
    const start = enc.starts[t];
    // Starts never decrease, so a forward walk finds the holder in amortized O(1).
    while (start >= segEnd && seg < segments.length - 1) {
      seg++;
      segEnd += segments[seg].text.length;
    }
    const s = segments[seg];
    out.tokenIds.push(enc.ids[t]);
    out.messageIndices.push(s.messageIndex);
    out.sampledMask.push(s.sampled);
    out.isContent.push(s.content);
  }
  return out;
}
