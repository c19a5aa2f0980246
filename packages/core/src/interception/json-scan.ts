/**
 * Byte-level JSON structure, without decoding: where a value ends, where whitespace stops, how
 * long two bodies agree. resent-body.ts uses it to find the elements of a request's message
 * array, so that a resent history is recognised by its bytes and only the new part is decoded.
 * It trusts its input to be JSON: every region it delimits is then parsed by JSON.parse, which
 * rejects what a wrong boundary would produce.
 */

export const QUOTE = 0x22;
const BACKSLASH = 0x5c;
export const OPEN_BRACE = 0x7b;
export const CLOSE_BRACE = 0x7d;
export const OPEN_BRACKET = 0x5b;
export const CLOSE_BRACKET = 0x5d;
export const COMMA = 0x2c;
export const COLON = 0x3a;

function isSpace(b: number | undefined): boolean {
  return b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
}

/** The first offset at or after `p` that is not JSON whitespace. */
export function skipSpace(buf: Buffer, p: number): number {
  while (p < buf.length && isSpace(buf[p])) p++;
  return p;
}

/** End (exclusive) of the string whose opening quote is at `p`; -1 when it does not close. */
export function stringEnd(buf: Buffer, p: number): number {
  let from = p + 1;
  for (;;) {
    // Long texts are most of a body: memchr to the next quote, then count the backslashes before it.
    const q = buf.indexOf(QUOTE, from);
    if (q < 0) return -1;
    let slashes = 0;
    for (let b = q - 1; b > p && buf[b] === BACKSLASH; b--) slashes++;
    if ((slashes & 1) === 0) return q + 1;
    from = q + 1;
  }
}

/** End (exclusive) of the value starting at `p` (no leading whitespace); -1 when it does not end. */
export function valueEnd(buf: Buffer, p: number): number {
  const c = buf[p];
  if (c === QUOTE) return stringEnd(buf, p);
  if (c === OPEN_BRACE || c === OPEN_BRACKET) {
    let depth = 0;
    for (let q = p; q < buf.length; q++) {
      const b = buf[q];
      if (b === QUOTE) {
        const e = stringEnd(buf, q);
        if (e < 0) return -1;
        q = e - 1;
      } else if (b === OPEN_BRACE || b === OPEN_BRACKET) depth++;
      else if (b === CLOSE_BRACE || b === CLOSE_BRACKET) {
        if (--depth === 0) return q + 1;
      }
    }
    return -1;
  }
  // A number or a literal: up to the next delimiter.
  let q = p;
  while (q < buf.length) {
    const b = buf[q];
    if (b === COMMA || b === CLOSE_BRACE || b === CLOSE_BRACKET || isSpace(b)) break;
    q++;
  }
  return q > p ? q : -1;
}

const CHUNK = 4096;

/**
 * How many leading bytes `a` and `b` share. One memcmp over `hint` bytes first (where the
 * previous body's history ended, the usual answer), then chunk by chunk.
 */
export function commonPrefix(a: Buffer, b: Buffer, hint: number): number {
  const n = Math.min(a.length, b.length);
  let lo = 0;
  const first = Math.min(hint, n);
  if (first > 0 && a.compare(b, 0, first, 0, first) === 0) lo = first;
  while (lo + CHUNK <= n && a.compare(b, lo, lo + CHUNK, lo, lo + CHUNK) === 0) lo += CHUNK;
  while (lo < n && a[lo] === b[lo]) lo++;
  return lo;
}
