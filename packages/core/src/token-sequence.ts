/**
 * An immutable, append-only sequence of token ids whose extensions share storage.
 *
 * A multi-turn prompt is the previous prompt plus a few hundred new ids; copying the whole
 * history on every turn makes each turn O(history). Here `append` returns a new sequence that
 * writes into the same buffer when nothing was written past this sequence yet (the usual linear
 * rollout), and copies once only when two extensions of one sequence diverge (a fork). Every
 * sequence's ids are fixed at creation: writes only ever land past the longest sequence on a
 * buffer, and a diverging extension gets a buffer of its own.
 *
 * The JSON text of the ids (ASCII bytes) is cached on the buffer the same way, so a request
 * body can carry `input_ids` without re-serialising the history (`jsonIdBytes`).
 */

import { zeros } from "./packed-arrays.ts";

/** Ids as the renderers, clients and transport accept them. */
export type TokenIds = TokenSequence | readonly number[];

const NO_TEXT = new Uint8Array(0);
const NO_ENDS = new Int32Array(0);

/** One shared buffer: ids [0, length) are written, views cover a prefix of them. */
class Store {
  ids: Int32Array;
  length = 0;
  /** Comma-joined decimal ids [0, textIds) as ASCII bytes, and where each id's text ends. */
  // Shared empty arrays until a first format replaces them (each typed array is an
  // ArrayBuffer V8 tracks until collected; a single-turn prompt never needs these).
  text: Uint8Array = NO_TEXT;
  textLength = 0;
  textIds = 0;
  textEnds: Int32Array = NO_ENDS;
  /**
   * Set once an append wrote here (a later turn's prompt): from then on its sequences' JSON is
   * cached, since the next turn resends it. A first-turn prompt's ids are formatted straight
   * into the request (two typed arrays and a copy fewer per rollout); if a later turn extends
   * it, that turn formats them once more, into the cache.
   */
  extended = false;

  constructor(capacity: number) {
    this.ids = new Int32Array(Math.max(16, capacity));
  }

  reserve(n: number): void {
    if (n <= this.ids.length) return;
    const grown = new Int32Array(Math.max(n, this.ids.length * 2));
    grown.set(this.ids.subarray(0, this.length));
    this.ids = grown;
  }
}

export class TokenSequence implements Iterable<number> {
  readonly length: number;
  private readonly store: Store;

  private constructor(store: Store, length: number) {
    this.store = store;
    this.length = length;
  }

  static readonly empty: TokenSequence = new TokenSequence(new Store(0), 0);

  /** A sequence holding a copy of `ids` (which must be integers in int32 range). */
  static from(ids: ArrayLike<number> | Iterable<number>): TokenSequence {
    const list = isArrayLike(ids) ? ids : Array.from(ids);
    // Room to grow: a prompt is usually extended next turn (a typed-array reallocation costs
    // more than the copy itself).
    const store = new Store(list.length * 2 + 256);
    write(store, 0, list, 0, list.length);
    return new TokenSequence(store, list.length);
  }

  /** `ids` itself when it is a sequence, else a sequence copying it. */
  static of(ids: TokenIds): TokenSequence {
    return ids instanceof TokenSequence ? ids : TokenSequence.from(ids);
  }

  /** The id at `i` (negative counts from the end), or undefined outside the sequence. */
  at(i: number): number | undefined {
    const k = i < 0 ? this.length + i : i;
    return k >= 0 && k < this.length ? this.store.ids[k] : undefined;
  }

  /**
   * This sequence followed by `ids[start, end)`. O(appended ids): the buffer is shared unless
   * something else was already written after this sequence and differs from `ids`.
   */
  append(ids: ArrayLike<number>, start = 0, end = ids.length): TokenSequence {
    if (end <= start) return this;
    // An empty sequence shares nothing worth keeping alive: start a buffer of its own.
    if (this.length === 0) return TokenSequence.from(sliceOf(ids, start, end));
    let store = this.store;
    let pos = this.length;
    let j = start;
    // Ids already written past this sequence by another extension are shared while they agree.
    while (j < end && pos < store.length && store.ids[pos] === ids[j]) {
      pos++;
      j++;
    }
    if (j === end) return new TokenSequence(store, pos);
    if (pos < store.length) store = this.fork(pos, end - j);
    store.extended = true;
    write(store, pos, ids, j, end);
    return new TokenSequence(store, pos + (end - j));
  }

  /** A new buffer holding ids [0, keep) of this one, with room for `extra` more. */
  private fork(keep: number, extra: number): Store {
    const store = new Store(keep + extra);
    store.ids.set(this.store.ids.subarray(0, keep));
    store.length = keep;
    return store;
  }

  /** The first `n` ids as a sequence sharing this one's buffer (O(1)). */
  prefix(n: number): TokenSequence {
    const k = clampIndex(n, this.length);
    return k === this.length ? this : new TokenSequence(this.store, k);
  }

  /**
   * True when `prefix` is a prefix of this sequence by construction — both are views of one
   * buffer — in O(1). False proves nothing: compare with `startsWith` then.
   */
  sharesPrefix(prefix: TokenSequence): boolean {
    return prefix.store === this.store && prefix.length <= this.length;
  }

  /** A fresh (packed) array of ids [start, end), like Array.prototype.slice. */
  slice(start = 0, end = this.length): number[] {
    const s = clampIndex(start, this.length);
    const e = clampIndex(end, this.length);
    const out = zeros(Math.max(0, e - s));
    const buf = this.store.ids;
    for (let i = s; i < e; i++) out[i - s] = buf[i]!;
    return out;
  }

  toArray(): number[] {
    return this.slice();
  }

  /** JSON.stringify writes the sequence as the array of its ids. */
  toJSON(): number[] {
    return this.toArray();
  }

  /** True when the ids at `offset` are exactly `part`. */
  matchesAt(offset: number, part: TokenIds): boolean {
    if (offset < 0 || offset + part.length > this.length) return false;
    let other: ArrayLike<number> = part as readonly number[];
    if (part instanceof TokenSequence) {
      if (offset === 0 && this.sharesPrefix(part)) return true;
      other = part.store.ids;
    }
    const buf = this.store.ids;
    for (let i = 0; i < part.length; i++) if (buf[offset + i] !== other[i]) return false;
    return true;
  }

  /** True when `prefix` is a prefix of this sequence (O(1) when it is an earlier view of it). */
  startsWith(prefix: TokenIds): boolean {
    return this.matchesAt(0, prefix);
  }

  equals(other: TokenIds): boolean {
    return other.length === this.length && this.matchesAt(0, other);
  }

  /**
   * The ids as JSON array elements, comma-joined ASCII bytes (`151644,872`): a view of bytes
   * cached on the buffer, so each call formats only the ids no earlier call did. The view never
   * changes (later ids are written after it, or into a new buffer).
   */
  jsonIdBytes(): Uint8Array {
    const store = this.store;
    if (this.length > store.textIds) extendText(store, this.length);
    return store.text.subarray(0, this.length === 0 ? 0 : store.textEnds[this.length - 1]);
  }

  /** Byte length of the ids as JSON array elements (what `writeJsonIds` writes). */
  jsonIdsLength(): number {
    if (this.store.extended) return this.jsonIdBytes().length;
    const ids = this.store.ids;
    let n = this.length > 0 ? this.length - 1 : 0;
    for (let i = 0; i < this.length; i++) n += decimalLength(ids[i]!);
    return n;
  }

  /**
   * Writes the ids as JSON array elements (as `jsonIdBytes`) into `out` at `at`; returns the
   * end. Copied from the cache when the buffer keeps one (see `Store.extended`), else formatted
   * in place.
   */
  writeJsonIds(out: Uint8Array, at: number): number {
    if (this.store.extended) {
      const bytes = this.jsonIdBytes();
      out.set(bytes, at);
      return at + bytes.length;
    }
    const ids = this.store.ids;
    let end = at;
    for (let i = 0; i < this.length; i++) {
      if (i > 0) out[end++] = COMMA;
      end = writeDecimal(out, end, ids[i]!);
    }
    return end;
  }

  /** The JSON array text of the ids, e.g. `[151644,872]`. */
  jsonText(): string {
    const bytes = this.jsonIdBytes();
    return `[${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString("latin1")}]`;
  }

  *[Symbol.iterator](): Iterator<number> {
    const buf = this.store.ids;
    for (let i = 0; i < this.length; i++) yield buf[i]!;
  }
}

/** Writes `ids[from, end)` at `pos` and extends the store's written length to the end of them. */
function write(store: Store, pos: number, ids: ArrayLike<number>, from: number, end: number): void {
  store.reserve(pos + (end - from));
  const buf = store.ids;
  for (let j = from; j < end; j++) {
    const id = ids[j]!;
    if (!Number.isInteger(id) || id < -0x80000000 || id > 0x7fffffff)
      throw new RangeError(`token id ${String(id)} at index ${j} is not an int32 integer`);
    buf[pos++] = id;
  }
  store.length = pos;
}

function extendText(store: Store, upTo: number): void {
  if (store.textEnds.length < upTo) {
    const grown = new Int32Array(Math.max(upTo, store.textEnds.length * 2, 64));
    grown.set(store.textEnds.subarray(0, store.textIds));
    store.textEnds = grown;
  }
  // At most 11 bytes per id: a comma, a sign and 9-10 digits.
  const need = store.textLength + 12 * (upTo - store.textIds);
  if (store.text.length < need) {
    // A new buffer, not a resize: views handed out keep the old one, which never changes.
    const grown = new Uint8Array(Math.max(need, store.text.length * 2, 256));
    grown.set(store.text.subarray(0, store.textLength));
    store.text = grown;
  }
  const buf = store.text;
  const ids = store.ids;
  let at = store.textLength;
  for (let i = store.textIds; i < upTo; i++) {
    if (i > 0) buf[at++] = COMMA;
    at = writeDecimal(buf, at, ids[i]!);
    store.textEnds[i] = at;
  }
  store.textLength = at;
  store.textIds = upTo;
}

const COMMA = 0x2c;
const MINUS = 0x2d;
const ZERO = 0x30;

/** Characters of `n` (an int32) in decimal, its sign included. */
function decimalLength(n: number): number {
  const v = n < 0 ? -n : n;
  let digits = 1;
  for (let p = 10; p <= v && digits < 10; p *= 10) digits++;
  return n < 0 ? digits + 1 : digits;
}

/** Writes `n` (an int32) in decimal ASCII at `at`; returns the end. */
function writeDecimal(buf: Uint8Array, at: number, n: number): number {
  let v = n;
  if (v < 0) {
    buf[at++] = MINUS;
    v = -v;
  }
  const end = at + decimalLength(v);
  // Integer steps (v ≤ 2^31, so `>>> 0` truncates exactly): no float modulo or floor per digit.
  let k = end;
  while (v >= 10) {
    const q = (v / 10) >>> 0;
    buf[--k] = ZERO + (v - q * 10);
    v = q;
  }
  buf[--k] = ZERO + v;
  return end;
}

function sliceOf(ids: ArrayLike<number>, start: number, end: number): number[] {
  const out: number[] = [];
  for (let i = start; i < end; i++) out.push(ids[i]!);
  return out;
}

function clampIndex(i: number, length: number): number {
  if (i < 0) return Math.max(0, length + i);
  return Math.min(i, length);
}

function isArrayLike(x: unknown): x is ArrayLike<number> {
  return typeof (x as { length?: unknown }).length === "number";
}
