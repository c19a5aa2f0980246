/**
 * Reads a `/generate` reply body from its bytes. Most of a reply is
 * `meta_info.output_token_logprobs`, one `[logprob, id, null]` tuple per sampled token (SGLang
 * sends `null` in place of the token text unless `return_text_in_logprobs` is set); JSON.parse
 * makes that one array plus one boxed double per token, about half the CPU of reading a reply.
 * Here the list is read straight from the bytes into two flat arrays and JSON.parse reads the
 * rest, with the list left empty; so is the top-level `output_ids` before it (the same ids, which
 * the result never reads from there), when it is a compact list of plain integers.
 *
 * The result is otherwise always what JSON.parse gives: the list is read only when it is
 * SGLang's compact shape (no whitespace, `null` texts, ids as plain integers), the key occurs
 * once in the body and lands in `meta_info`, and each logprob is converted exactly (see
 * `readNumber`); anything else is parsed whole by JSON.parse.
 */

import { POW10, quotient } from "./decimal.ts";

const KEY = Buffer.from('"output_token_logprobs":[');
const IDS_KEY = Buffer.from('"output_ids":[');

export interface GenerateReplyJson {
  /**
   * The parsed body; `meta_info.output_token_logprobs` is `[]` when `ids` and `logprobs` are set,
   * and `output_ids` may then be `[]` too.
   */
  body: unknown;
  /** The list's ids and logprobs when it was read from the bytes, else null (it is in `body`). */
  ids: number[] | null;
  logprobs: number[] | null;
}

export function readGenerateReply(bytes: Buffer): GenerateReplyJson {
  const key = bytes.indexOf(KEY);
  if (key >= 0) {
    const open = key + KEY.length;
    const close = readTuples(bytes, open);
    if (close >= 0 && bytes.indexOf(KEY, close) < 0) {
      // Every cut is at an ASCII byte, so the parts decode on their own.
      const idsKey = bytes.lastIndexOf(IDS_KEY, key);
      const idsOpen = idsKey + IDS_KEY.length;
      const idsClose =
        idsKey < 0 || bytes.indexOf(IDS_KEY, idsOpen) >= 0 ? -1 : intListEnd(bytes, idsOpen, key);
      const text =
        idsClose < 0
          ? bytes.toString("utf8", 0, open) + bytes.toString("utf8", close)
          : bytes.toString("utf8", 0, idsOpen) +
            bytes.toString("utf8", idsClose, open) +
            bytes.toString("utf8", close);
      const body = JSON.parse(text) as {
        output_ids?: unknown;
        meta_info?: { output_token_logprobs?: unknown };
      } | null;
      const list = body?.meta_info?.output_token_logprobs;
      const ids = body?.output_ids;
      if (
        Array.isArray(list) &&
        list.length === 0 &&
        (idsClose < 0 || (Array.isArray(ids) && ids.length === 0))
      ) {
        const ids = readIds.slice(0, count);
        const logprobs = readLogprobs.slice(0, count);
        if (count > SCRATCH_KEPT) {
          readIds = [];
          readLogprobs = [];
        }
        return { body, ids, logprobs };
      }
    }
  }
  return { body: JSON.parse(bytes.toString("utf8")), ids: null, logprobs: null };
}

/**
 * The list is read into these (reused, written by index) and copied out at its exact length: no
 * arrays grown by doubling per reply. Past SCRATCH_KEPT entries they are let go after the copy.
 */
let readIds: number[] = [];
let readLogprobs: number[] = [];
let count = 0;
const SCRATCH_KEPT = 1 << 16;

/**
 * Reads `[lp,id,null],…]` from `at` (just after the list's `[`) into the first `count` entries of
 * readIds/readLogprobs; returns the index of the list's closing `]`, or -1 when the list has any
 * other shape.
 */
function readTuples(b: Buffer, from: number): number {
  let at = from;
  count = 0;
  if (b[at] === CLOSE) return at;
  for (;;) {
    if (b[at] !== OPEN) return -1;
    if (!readNumber(b, at + 1) || b[end] !== COMMA) return -1;
    const id = readId(b, end + 1);
    if (id < 0 || b[end] !== COMMA || !isNull(b, end + 1) || b[end + 5] !== CLOSE) return -1;
    readLogprobs[count] = value[0]!;
    readIds[count] = id;
    count++;
    at = end + 6;
    if (b[at] === CLOSE) return at;
    if (b[at] !== COMMA) return -1;
    at++;
  }
}

/** The index of the `]` closing a compact list of plain integers opened before `from`, or -1 (also past `limit`). */
function intListEnd(b: Buffer, from: number, limit: number): number {
  let at = from;
  if (b[at] === CLOSE) return at;
  for (;;) {
    if (readId(b, at) < 0 || end >= limit) return -1;
    at = end;
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
  let c = b[at]!;
  if (!(c >= ZERO && c <= NINE)) return false;
  // The first 9 significant digits in `high`, the rest in `low` (see decimal.ts).
  let high = 0;
  let significant = 0;
  let low = 0;
  let lowDigits = 0;
  // No leading zeros in JSON ("01" is not a number).
  if (c === ZERO && isDigit(b[at + 1])) return false;
  let point = -1;
  for (;;) {
    if (c >= ZERO && c <= NINE) {
      if (significant < 9) {
        high = high * 10 + (c - ZERO);
        // Zeros before the first other digit ("0.000…") are not significant.
        if (high !== 0) significant++;
      } else {
        low = low * 10 + (c - ZERO);
        lowDigits++;
      }
    } else if (c === DOT && point < 0) {
      if (!isDigit(b[at + 1])) return false;
      point = at + 1;
    } else break;
    c = b[++at]!;
  }
  const fraction = point < 0 ? 0 : at - point;
  let exponent = false;
  if (c === 0x65 || c === 0x45) {
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
