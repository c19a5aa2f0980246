/**
 * Reads a `/generate` reply body from its bytes. Most of a reply is
 * `meta_info.output_token_logprobs`, one `[logprob, id, null]` tuple per sampled token (SGLang
 * sends `null` in place of the token text unless `return_text_in_logprobs` is set); JSON.parse
 * makes that one array plus one boxed double per token, about half the CPU of reading a reply.
 * Here the list is read straight from the bytes into two flat arrays and JSON.parse reads the
 * rest, with the list left empty.
 *
 * The result is always what JSON.parse gives: the list is read only when it is SGLang's compact
 * shape (no whitespace, `null` texts, ids as plain integers), the key occurs once in the body and
 * lands in `meta_info`, and each logprob is converted exactly (see `readNumber`); anything else
 * is parsed whole by JSON.parse.
 */

import { POW10, quotient } from "./decimal.ts";

const KEY = Buffer.from('"output_token_logprobs":[');

export interface GenerateReplyJson {
  /** The parsed body; `meta_info.output_token_logprobs` is `[]` when `ids` and `logprobs` are set. */
  body: unknown;
  /** The list's ids and logprobs when it was read from the bytes, else null (it is in `body`). */
  ids: number[] | null;
  logprobs: number[] | null;
}

export function readGenerateReply(bytes: Buffer): GenerateReplyJson {
  const key = bytes.indexOf(KEY);
  if (key >= 0) {
    const open = key + KEY.length;
    const ids: number[] = [];
    const logprobs: number[] = [];
    const close = readTuples(bytes, open, ids, logprobs);
    if (close >= 0 && bytes.indexOf(KEY, close) < 0) {
      // Both cuts are at ASCII bytes, so the two halves decode on their own.
      const body = JSON.parse(bytes.toString("utf8", 0, open) + bytes.toString("utf8", close));
      const list = (body as { meta_info?: { output_token_logprobs?: unknown } } | null)?.meta_info
        ?.output_token_logprobs;
      if (Array.isArray(list) && list.length === 0) return { body, ids, logprobs };
    }
  }
  return { body: JSON.parse(bytes.toString("utf8")), ids: null, logprobs: null };
}

/**
 * Reads `[lp,id,null],…]` from `at` (just after the list's `[`); returns the index of the list's
 * closing `]`, or -1 when the list has any other shape.
 */
function readTuples(b: Buffer, from: number, ids: number[], logprobs: number[]): number {
  let at = from;
  if (b[at] === CLOSE) return at;
  for (;;) {
    if (b[at] !== OPEN) return -1;
    if (!readNumber(b, at + 1) || b[end] !== COMMA) return -1;
    const id = readId(b, end + 1);
    if (id < 0 || b[end] !== COMMA || !isNull(b, end + 1) || b[end + 5] !== CLOSE) return -1;
    logprobs.push(value[0]!);
    ids.push(id);
    at = end + 6;
    if (b[at] === CLOSE) return at;
    if (b[at] !== COMMA) return -1;
    at++;
  }
}

/**
 * Where the last `readNumber` / `readId` stopped, and the number read: module state, so that no
 * double is boxed on its way out of a call.
 */
let end = 0;
const value = new Float64Array(1);

const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;
const COMMA = 0x2c;
const OPEN = 0x5b;
const CLOSE = 0x5d;
const NULL = Buffer.from("null");

function isDigit(c: number | undefined): boolean {
  return c !== undefined && c >= ZERO && c <= NINE;
}

function isNull(b: Buffer, at: number): boolean {
  return b[at] === NULL[0] && b[at + 1] === NULL[1] && b[at + 2] === NULL[2] && b[at + 3] === NULL[3];
}

/**
 * Reads a JSON number at `start` into `value[0]`; false when there is none. Exact: when the
 * digits form an integer m below 2^53 and at most 22 of them follow the point, m and 10^k are
 * exact doubles and their quotient is correctly rounded (Clinger's fast path), which is the
 * double JSON.parse reads; longer digit strings (most logprobs have 16–17 digits) go through
 * decimal.ts's checked quotient; anything else (an exponent, an undecided quotient) goes to
 * Number as text, which reads JSON numbers as JSON.parse does.
 */
function readNumber(b: Buffer, start: number): boolean {
  let at = start;
  const negative = b[at] === MINUS;
  if (negative) at++;
  if (!isDigit(b[at])) return false;
  // No leading zeros in JSON ("01" is not a number).
  if (b[at] === ZERO && isDigit(b[at + 1])) return false;
  // The first 9 significant digits in `high`, the rest in `low` (see decimal.ts).
  let high = 0;
  let significant = 0;
  let low = 0;
  let lowDigits = 0;
  let fraction = 0;
  let point = false;
  for (;;) {
    const c = b[at]!;
    if (c >= ZERO && c <= NINE) {
      if (significant < 9) {
        high = high * 10 + (c - ZERO);
        if (high !== 0) significant++;
      } else {
        low = low * 10 + (c - ZERO);
        lowDigits++;
      }
      if (point) fraction++;
    } else if (c === DOT && !point) {
      if (!isDigit(b[at + 1])) return false;
      point = true;
    } else break;
    at++;
  }
  let exponent = false;
  if (b[at] === 0x65 || b[at] === 0x45) {
    at++;
    if (b[at] === PLUS || b[at] === MINUS) at++;
    if (!isDigit(b[at])) return false;
    while (isDigit(b[at])) at++;
    exponent = true;
  }
  end = at;
  let v = Number.NaN;
  if (!exponent && lowDigits <= 9 && fraction < POW10.length) {
    // Exact when m ≤ 2^53: high·10^j is exact, and so is a sum that fits.
    const m = lowDigits === 0 ? high : high * POW10[lowDigits]! + low;
    v = m <= Number.MAX_SAFE_INTEGER ? m / POW10[fraction]! : quotient(high, low, lowDigits, fraction);
  }
  if (Number.isNaN(v)) value[0] = Number(b.toString("latin1", start, at));
  else value[0] = negative ? -v : v;
  return true;
}

/** A token id (a plain non-negative integer of up to 10 digits) at `at`, or -1. */
function readId(b: Buffer, start: number): number {
  let at = start;
  if (!isDigit(b[at]) || (b[at] === ZERO && isDigit(b[at + 1]))) return -1;
  let id = 0;
  while (isDigit(b[at])) {
    id = id * 10 + (b[at++]! - ZERO);
    if (at - start > 10) return -1;
  }
  if (b[at] === DOT || b[at] === 0x65 || b[at] === 0x45) return -1;
  end = at;
  return id;
}
