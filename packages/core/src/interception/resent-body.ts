/**
 * An agent program resends its whole conversation every turn: at turn 100 of a coding agent the
 * body is ~200 KB, of which the last turn added ~2 KB. Decoding and JSON-parsing all of it each
 * turn makes every turn cost more than the one before. A `ResentBody` (one per rollout and
 * dialect) keeps the previous body's bytes and where each element of its history array
 * (`messages`, `input`) ended; a new body that starts with the same bytes reuses those parsed
 * elements and decodes only what follows them.
 *
 * The result is the value `JSON.parse` gives for the whole text — same keys in the same order,
 * same values — only with the unchanged elements (and an unchanged tail: the tools) being the
 * objects parsed before, which callers must not mutate. Anything that does not fit the shape
 * (a different head, a key given twice, invalid JSON, no such array) takes the plain parse, so
 * its errors are the plain parse's errors.
 */
import { jsonObjectOf, parseJsonText } from "../http/index.ts";
import {
  CLOSE_BRACE,
  CLOSE_BRACKET,
  COLON,
  COMMA,
  commonPrefix,
  OPEN_BRACE,
  OPEN_BRACKET,
  QUOTE,
  skipSpace,
  stringEnd,
  valueEnd,
} from "./json-scan.ts";

type Json = Record<string, any>;
type Entries = readonly (readonly [string, unknown])[];

interface Indexed {
  bytes: Buffer;
  /** Top-level members before the array, in order. */
  head: Entries;
  /** Offset just after the array's `[`. */
  open: number;
  /** Per element: the offset just after it. */
  ends: number[];
  elements: unknown[];
  /** Offset of the array's `]`. */
  close: number;
  /** Top-level members after the array, in order. */
  tail: Entries;
}

export class ResentBody {
  /** Elements the last parse took from the previous body (what tests and benches read). */
  reused = 0;
  /** Parses that reused part of the previous body / that parsed everything. */
  readonly counts = { resent: 0, full: 0 };
  private last: Indexed | null = null;
  private readonly keyBytes: Buffer;

  /** `key`: the top-level member holding the history array. */
  constructor(private readonly key: string) {
    this.keyBytes = Buffer.from(JSON.stringify(key));
  }

  /** The body as `readJsonObject` would give it (the same 400s). */
  parse(bytes: Buffer): Json {
    const last = this.last;
    this.last = null;
    if (last) {
      const resent = this.extend(last, bytes);
      if (resent) {
        this.counts.resent++;
        return resent;
      }
    }
    this.counts.full++;
    this.reused = 0;
    const indexed = this.index(bytes);
    if (indexed) return indexed;
    return jsonObjectOf(parseJsonText(bytes.toString("utf8")));
  }

  /** A body extending `last`'s bytes: its unchanged elements reused, the rest parsed. */
  private extend(last: Indexed, bytes: Buffer): Json | null {
    if (bytes.length < last.open) return null;
    const same = commonPrefix(last.bytes, bytes, last.close);
    if (same < last.open) return null;
    // Elements whose bytes all lie in the shared prefix are the same values.
    let k = 0;
    let hi = last.ends.length;
    while (k < hi) {
      const mid = (k + hi) >>> 1;
      if (last.ends[mid]! <= same) k = mid + 1;
      else hi = mid;
    }
    let p: number;
    if (k === 0) p = skipSpace(bytes, last.open);
    else {
      p = skipSpace(bytes, last.ends[k - 1]!);
      if (bytes[p] === COMMA) p = skipSpace(bytes, p + 1);
      else if (bytes[p] !== CLOSE_BRACKET) return null;
    }
    // `last` is given up above (this.last = null), so its lists are cut in place, not copied:
    // a copy would cost a pass over the whole history each turn.
    last.ends.length = k;
    last.elements.length = k;
    const out = this.rest(bytes, last.head, last.open, p, last.ends, last.elements, last);
    if (out) this.reused = k;
    return out;
  }

  /** A body parsed from scratch, indexed for the next one; null when it is not of the shape. */
  private index(bytes: Buffer): Json | null {
    let p = skipSpace(bytes, 0);
    if (bytes[p] !== OPEN_BRACE) return null;
    p = skipSpace(bytes, p + 1);
    let keys = 0;
    for (;;) {
      if (bytes[p] !== QUOTE) return null;
      const keyEnd = stringEnd(bytes, p);
      if (keyEnd < 0) return null;
      const isKey = keyEnd - p === this.keyBytes.length && this.keyBytes.equals(bytes.subarray(p, keyEnd));
      p = skipSpace(bytes, keyEnd);
      if (bytes[p] !== COLON) return null;
      p = skipSpace(bytes, p + 1);
      if (isKey) {
        if (bytes[p] !== OPEN_BRACKET) return null;
        break;
      }
      keys++;
      const end = valueEnd(bytes, p);
      if (end < 0) return null;
      p = skipSpace(bytes, end);
      if (bytes[p] !== COMMA) return null;
      p = skipSpace(bytes, p + 1);
    }
    const open = p + 1;
    let head: Json;
    try {
      head = JSON.parse(`${bytes.toString("utf8", 0, p)}0}`);
    } catch {
      return null;
    }
    // One member per key scanned (a key given twice would keep its first place but its last value).
    const names = Object.keys(head);
    if (names.length !== keys + 1 || names.includes("__proto__")) return null;
    const entries = names.filter((n) => n !== this.key).map((n) => [n, head[n]] as const);
    return this.rest(bytes, entries, open, skipSpace(bytes, open), [], [], null);
  }

  /**
   * The elements from `p` (the first one not reused, or the array's end) on, then the members
   * after the array (`before`'s when the bytes from the array's end on are the same), assembled
   * with `head`; the new index is kept for the next body.
   */
  private rest(
    bytes: Buffer,
    head: Entries,
    open: number,
    p: number,
    ends: number[],
    elements: unknown[],
    before: Indexed | null,
  ): Json | null {
    const first = p;
    const added = ends.length;
    if (bytes[p] !== CLOSE_BRACKET) {
      for (;;) {
        const end = valueEnd(bytes, p);
        if (end < 0) return null;
        ends.push(end);
        p = skipSpace(bytes, end);
        if (bytes[p] === COMMA) p = skipSpace(bytes, p + 1);
        else if (bytes[p] === CLOSE_BRACKET) break;
        else return null;
      }
    }
    const close = p;
    let tail: Entries;
    try {
      if (close > first) {
        const parsed = JSON.parse(`[${bytes.toString("utf8", first, close)}]`) as unknown[];
        if (parsed.length !== ends.length - added) return null;
        for (const e of parsed) elements.push(e);
      }
      tail = before && sameTail(before, bytes, close) ? before.tail : this.tail(bytes, close + 1, head);
    } catch {
      return null;
    }
    const out: Json = {};
    for (const [k, v] of head) out[k] = v;
    out[this.key] = elements.slice();
    for (const [k, v] of tail) out[k] = v;
    this.last = { bytes, head, open, ends, elements, close, tail };
    return out;
  }

  /** The members after the array (from `p`, just past its `]`); throws when they are not JSON. */
  private tail(bytes: Buffer, p: number, head: Entries): Entries {
    p = skipSpace(bytes, p);
    if (bytes[p] === CLOSE_BRACE) {
      if (skipSpace(bytes, p + 1) !== bytes.length) throw new Error("text after the body");
      return [];
    }
    // `,` then a member: `, }` would parse below as `{ }`, but the whole is not JSON.
    if (bytes[p] !== COMMA || bytes[skipSpace(bytes, p + 1)] !== QUOTE) throw new Error("not a member");
    const rest = JSON.parse(`{${bytes.toString("utf8", p + 1)}`) as Json;
    const names = Object.keys(rest);
    for (const n of names)
      if (n === this.key || n === "__proto__" || head.some(([k]) => k === n)) throw new Error("key twice");
    return names.map((n) => [n, rest[n]] as const);
  }
}

/** The bytes from the array's `]` to the end are the same as `before`'s (the tools, usually). */
function sameTail(before: Indexed, bytes: Buffer, close: number): boolean {
  const length = before.bytes.length - before.close;
  return (
    bytes.length - close === length &&
    bytes.compare(before.bytes, before.close, before.bytes.length, close, bytes.length) === 0
  );
}
