/**
 * From a render's per-character owners and its sampled/body ranges to what the tokens carry:
 * `toSegments` cuts the text into attributed segments (the bridge tokenizes a tail that way),
 * `tokenizeOwned` attributes the tokens of a whole render directly — each token by its first
 * character, the rule `tokenizeSegments` applies to segments (common/attribution.ts), without making
 * the segments and joining them again into the text they came from.
 */
import type { Tokenizer } from "../../tokenizer/index.ts";
import type { Segment, TokenAttribution } from "../common/attribution.ts";

/** Character ranges `[start, end)` of sampled text and of message bodies. */
export interface Spans {
  sampled: [number, number][];
  content: [number, number][];
}

/** 1 at every offset of `text[from:]` inside one of the ranges (one pass, whatever their number). */
function rangeFlags(length: number, from: number, ranges: readonly [number, number][]): Uint8Array {
  const flags = new Uint8Array(length);
  for (const [s, e] of ranges) flags.fill(1, Math.max(s, from), Math.max(from, Math.min(e, length)));
  return flags;
}

/**
 * Cuts `text[from:]` wherever the owner or the sampled/content flags change (one pass over
 * three typed arrays, nothing allocated per character).
 */
export function toSegments(
  text: string,
  owner: Int32Array,
  from: number,
  indexBase: number,
  spans: Spans,
): Segment[] {
  const out: Segment[] = [];
  const isSampled = rangeFlags(text.length, from, spans.sampled);
  const isContent = rangeFlags(text.length, from, spans.content);
  const n = text.length;
  let start = from;
  while (start < n) {
    const k = owner[start]!;
    const s = isSampled[start]!;
    const c = s | isContent[start]!;
    let end = start + 1;
    while (end < n && owner[end] === k && isSampled[end] === s && (s | isContent[end]!) === c) end++;
    out.push({
      text: text.slice(start, end),
      messageIndex: k >= 0 ? k - indexBase : -1,
      sampled: s === 1,
      content: c === 1,
    });
    start = end;
  }
  return out;
}

/** The whole text encoded once; token t gets the owner and flags of its first character. */
export function tokenizeOwned(
  tokenizer: Tokenizer,
  text: string,
  owner: Int32Array,
  spans: Spans,
): TokenAttribution {
  const isSampled = rangeFlags(text.length, 0, spans.sampled);
  const isContent = rangeFlags(text.length, 0, spans.content);
  const enc = tokenizer.encodeWithOffsets(text);
  const n = enc.ids.length;
  const out: TokenAttribution = {
    tokenIds: enc.ids,
    messageIndices: new Array<number>(n),
    sampledMask: new Array<boolean>(n),
    isContent: new Array<boolean>(n),
  };
  const last = text.length - 1;
  for (let t = 0; t < n; t++) {
    const c = Math.min(enc.starts[t]!, last);
    const k = owner[c]!;
    const s = isSampled[c] === 1;
    out.messageIndices[t] = k >= 0 ? k : -1;
    out.sampledMask[t] = s;
    out.isContent[t] = s || isContent[c] === 1;
  }
  return out;
}
