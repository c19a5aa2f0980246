/**
 * Token offsets: which characters of the input each token came from. Byte-level BPE tokens are
 * byte runs, so offsets are found by walking UTF-8 lengths; NFC normalization (which can change
 * the text) is undone by mapping normalized offsets back to the raw text.
 */
import { hfNfc } from "./nfc.ts";

/** Token ids with [start, end) UTF-16 offsets into the encoded text. */
export interface EncodingWithOffsets {
  ids: number[];
  starts: number[];
  ends: number[];
}

/**
 * Appends each token of one pre-token with UTF-16 offsets. A token that ends inside a multi-byte
 * character owns that character's end (its start is the character holding its first byte), the
 * same convention as HF's offset mapping.
 */
export function pieceOffsets(
  text: string,
  ps: number,
  pe: number,
  pieceIds: readonly number[],
  byteLen: (id: number) => number,
  out: EncodingWithOffsets,
): void {
  if (pieceIds.length === 1) {
    out.ids.push(pieceIds[0]!);
    out.starts.push(ps);
    out.ends.push(pe);
    return;
  }
  let ci = ps; // UTF-16 index of the code point holding the current byte
  let cpByte = 0; // bytes already consumed of that code point
  for (const id of pieceIds) {
    const start = ci;
    let n = byteLen(id);
    while (n > 0 && ci < pe) {
      const cp = text.codePointAt(ci)!;
      const cpLen = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
      const take = Math.min(n, cpLen - cpByte);
      n -= take;
      cpByte += take;
      if (cpByte === cpLen) {
        ci += cp > 0xffff ? 2 : 1;
        cpByte = 0;
      }
    }
    const end = cpByte > 0 ? ci + ((text.codePointAt(ci) ?? 0) > 0xffff ? 2 : 1) : ci;
    out.ids.push(id);
    out.starts.push(start);
    out.ends.push(end);
  }
}

/**
 * Rewrites offsets computed on `norm` = NFC(`raw`) into offsets on `raw`. The raw text is cut
 * before every "safe" ASCII character (one followed by ASCII or the end): nothing composes with
 * it on either side, so NFC(raw) is the concatenation of NFC(run) over the runs. Offsets inside
 * a run that NFC changed map to the run's start (or end, for an offset at the run's end).
 */
export function remapOffsets(raw: string, norm: string, out: EncodingWithOffsets): void {
  const rawStarts: number[] = [];
  const normStarts: number[] = [];
  let n = 0;
  let i = 0;
  while (i < raw.length) {
    const start = i++;
    while (i < raw.length && !isSafeAscii(raw, i)) i++;
    rawStarts.push(start);
    normStarts.push(n);
    n += hfNfc(raw.slice(start, i)).length;
  }
  if (n !== norm.length) return; // cannot align: keep normalized offsets
  rawStarts.push(raw.length);
  normStarts.push(norm.length);
  const map = (x: number): number => {
    let lo = 0;
    let hi = normStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (normStarts[mid]! <= x) lo = mid;
      else hi = mid - 1;
    }
    if (lo === normStarts.length - 1) return raw.length;
    const ns = normStarts[lo]!;
    const rs = rawStarts[lo]!;
    const sameLength = normStarts[lo + 1]! - ns === rawStarts[lo + 1]! - rs;
    return sameLength ? rs + (x - ns) : rs;
  };
  for (let k = 0; k < out.ids.length; k++) {
    out.starts[k] = map(out.starts[k]!);
    out.ends[k] = map(out.ends[k]!);
  }
}

function isSafeAscii(s: string, i: number): boolean {
  return s.charCodeAt(i) < 0x80 && (i + 1 >= s.length || s.charCodeAt(i + 1) < 0x80);
}
