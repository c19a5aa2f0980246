/**
 * Reading one HTTP/1.1 reply off a connection's bytes for the keep-alive client (h1.ts): the
 * head (1xx heads skipped), then the body by its framing — Content-Length, chunked (extensions
 * and trailers read and dropped) or the connection's end — and whether the connection may carry
 * another request afterwards.
 */

/**
 * What a caller makes of a 200 reply's body while its bytes are still where they were read (a
 * connection's reused read buffer): it must copy whatever it keeps, and may throw to have the
 * body kept as bytes instead.
 */
export type ReadBody = (body: Buffer) => unknown;

const NO_BYTES = Buffer.alloc(0);

/**
 * A whole reply. The body is kept as bytes (a leading UTF-8 BOM dropped, as undici's
 * `body.text()` drops it) and decoded to text only when asked: the `/generate` reader reads its
 * number lists straight from the bytes. With a `ReadBody`, a 200 body that arrived in one piece
 * is read where it lies instead, and only what it made is kept (`read`; `bytes` is then empty).
 */
export class HttpReply {
  private decoded: string | null = null;

  constructor(
    readonly status: number,
    readonly bytes: Buffer,
    readonly retryAfter: string | null,
    /** What the request's ReadBody made of the body (undefined: it was not read so). */
    readonly read?: unknown,
  ) {}

  /** From the body's parts: read in place by `readBody`, else copied into memory of its own (see `ownBytes`). */
  static of(
    status: number,
    chunks: readonly Buffer[],
    length: number,
    retryAfter: string | null,
    readBody: ReadBody | null = null,
  ): HttpReply {
    if (readBody !== null && status === 200 && chunks.length === 1) {
      // A reply's own copy of ~6 KB per `/generate` was a fresh slab every few replies, memory
      // the allocator returned to the system and faulted in again.
      try {
        return new HttpReply(status, NO_BYTES, retryAfter, readBody(withoutBom(chunks[0]!)));
      } catch {
        // Kept as bytes: the caller reads them again and reports the failure with the text.
      }
    }
    return new HttpReply(status, withoutBom(ownBytes(chunks, length)), retryAfter);
  }

  get text(): string {
    this.decoded ??= this.bytes.toString("utf8");
    return this.decoded;
  }
}

function withoutBom(buf: Buffer): Buffer {
  return buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? buf.subarray(3) : buf;
}

/**
 * Bodies up to 8 KB are copied into a shared 64 KB slab, as Node pools Buffers under 4 KB: a
 * `/generate` reply (~4 KB) just misses Node's pool, and an ArrayBuffer of its own per reply
 * costs about six times its copy. A slab is freed once every body cut from it is.
 */
const SLAB = 64 * 1024;
let slab = Buffer.allocUnsafeSlow(SLAB);
let slabUsed = 0;

function ownBytes(chunks: readonly Buffer[], length: number): Buffer {
  if (length > SLAB >>> 3)
    return chunks.length === 1 ? Buffer.from(chunks[0]!) : Buffer.concat(chunks, length);
  if (slabUsed + length > SLAB) {
    slab = Buffer.allocUnsafeSlow(SLAB);
    slabUsed = 0;
  }
  const out = slab.subarray(slabUsed, slabUsed + length);
  let at = 0;
  for (const c of chunks) at += c.copy(out, at);
  // 8-byte aligned, so a typed-array view over a body stays possible.
  slabUsed += (length + 7) & ~7;
  return out;
}

export class H1Error extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
    this.name = "H1Error";
  }
}

type Framing = "length" | "chunked" | "close" | "none";

const HEAD_LIMIT = 64 * 1024;
const CR = 0x0d;
const LF = 0x0a;

/** Where the head's blank line starts, or -1 (scanned in JS: a native indexOf per line costs more). */
function headEnd(b: Buffer): number {
  for (let i = 0; i + 3 < b.length; i++)
    if (b[i] === CR && b[i + 1] === LF && b[i + 2] === CR && b[i + 3] === LF) return i;
  return -1;
}

/** Where the line from `at` ends (its CRLF), at most `end`. */
function lineEnd(b: Buffer, at: number, end: number): number {
  let i = at;
  while (i < end && !(b[i] === CR && b[i + 1] === LF)) i++;
  return i;
}
const COLON = 0x3a;
const SP = 0x20;

function isDigit(c: number | undefined): boolean {
  return c !== undefined && c >= 0x30 && c <= 0x39;
}

const HTTP1 = Buffer.from("HTTP/1.");

function startsWithHttp1(b: Buffer): boolean {
  for (let i = 0; i < HTTP1.length; i++) if (b[i] !== HTTP1[i]) return false;
  return true;
}

function isSpace(c: number | undefined): boolean {
  return c === SP || c === 0x09;
}

/** The headers that frame a reply, by their lowercase names. */
const HEADERS = ["content-length", "transfer-encoding", "connection", "keep-alive", "retry-after"];
const [CONTENT_LENGTH, TRANSFER_ENCODING, CONNECTION, KEEP_ALIVE] = [0, 1, 2, 3];
const OTHER = -1;
const HEADER_BYTES = HEADERS.map((h) => Buffer.from(h, "latin1"));

/** Which of HEADERS `b[from, to)` names, ASCII case ignored; OTHER for any other name. */
function headerName(b: Buffer, from: number, to: number): number {
  const n = to - from;
  for (let h = 0; h < HEADER_BYTES.length; h++) {
    const want = HEADER_BYTES[h]!;
    if (want.length !== n) continue;
    let i = 0;
    while (i < n && (b[from + i]! | 0x20) === want[i]) i++;
    if (i === n) return h;
  }
  return OTHER;
}

/** Reads one reply from the bytes of a connection: head, then the body by its framing. */
export class ReplyReader {
  private buf: Buffer | null = null;
  private status = 0;
  private framing: Framing = "none";
  private remaining = 0;
  private reusable = true;
  private keepAliveMs: number | null = null;
  private retryAfter: string | null = null;
  private retryAfterSeen = 0;
  private inHead = true;
  private chunks: Buffer[] = [];
  private length = 0;
  /** Chunked: bytes of the current chunk left, or -1 while a size line is read, -2 in trailers. */
  private chunkLeft = -1;
  private isHead = false;
  private bodyReader: ReadBody | null = null;

  reset(isHead: boolean, readBody: ReadBody | null = null): void {
    this.bodyReader = readBody;
    this.buf = null;
    this.inHead = true;
    this.chunks = [];
    this.length = 0;
    this.chunkLeft = -1;
    this.retryAfter = null;
    this.retryAfterSeen = 0;
    this.keepAliveMs = null;
    this.isHead = isHead;
  }

  /**
   * The reply when bytes [0, n) of `read` completed it, else null. `read` is the socket's reused
   * read buffer: whatever outlives this call is copied.
   */
  push(read: Buffer, n: number): { reply: HttpReply; reusable: boolean; keepAliveMs: number | null } | null {
    const chunk = read.subarray(0, n);
    const data = this.buf === null ? chunk : Buffer.concat([this.buf, chunk]);
    this.buf = null;
    const kept = this.chunks.length;
    const reply = this.read(data);
    // Views into `read` taken by this call are copied (a finished reply copied its body already).
    if (reply === null) {
      for (let i = kept; i < this.chunks.length; i++) this.chunks[i] = Buffer.from(this.chunks[i]!);
      const rest = this.buf as Buffer | null;
      if (rest !== null && rest.buffer === read.buffer) this.buf = Buffer.from(rest);
    }
    return reply;
  }

  private read(input: Buffer): { reply: HttpReply; reusable: boolean; keepAliveMs: number | null } | null {
    let data = input;
    while (this.inHead) {
      const end = headEnd(data);
      if (end < 0) {
        if (data.length > HEAD_LIMIT) throw new H1Error("reply head too large", "ERR_H1_PARSE");
        this.buf = data;
        return null;
      }
      this.readHead(data, end);
      data = data.subarray(end + 4);
    }
    const done = this.readBody(data);
    if (!done) return null;
    return {
      reply: this.reply(),
      reusable: this.reusable,
      keepAliveMs: this.keepAliveMs,
    };
  }

  /** The connection ended: the reply, if its framing is "until the end". */
  end(): HttpReply | null {
    if (this.inHead || this.framing !== "close") return null;
    return this.reply();
  }

  /** The head in `b[0, end)`, read from its bytes: only the headers that frame a reply are decoded. */
  private readHead(b: Buffer, end: number): void {
    let eol = lineEnd(b, 0, end);
    // "HTTP/1.x NNN" then a space or the line's end.
    const ok =
      eol >= 12 &&
      startsWithHttp1(b) &&
      (b[7] === 0x30 || b[7] === 0x31) &&
      b[8] === SP &&
      isDigit(b[9]) &&
      isDigit(b[10]) &&
      isDigit(b[11]) &&
      (eol === 12 || b[12] === SP);
    if (!ok)
      throw new H1Error(
        `bad status line ${JSON.stringify(b.toString("latin1", 0, Math.min(eol, 80)))}`,
        "ERR_H1_PARSE",
      );
    const status = (b[9]! - 0x30) * 100 + (b[10]! - 0x30) * 10 + (b[11]! - 0x30);
    // 1xx heads (100 Continue, 103 Early Hints) precede the real one.
    if (status < 200) return;
    this.inHead = false;
    this.status = status;
    let keepAlive = b[7] === 0x31;
    let contentLength = -1;
    let chunked = false;
    while (eol < end) {
      const at = eol + 2;
      eol = lineEnd(b, at, end);
      let colon = at;
      while (colon < eol && b[colon] !== COLON) colon++;
      if (colon === eol) throw new H1Error("bad header line", "ERR_H1_PARSE");
      let from = at;
      let to = colon;
      while (from < to && isSpace(b[from])) from++;
      while (to > from && isSpace(b[to - 1])) to--;
      if (to === from) throw new H1Error("bad header line", "ERR_H1_PARSE");
      const name = headerName(b, from, to);
      if (name === OTHER) continue;
      let v0 = colon + 1;
      let v1 = eol;
      while (v0 < v1 && isSpace(b[v0])) v0++;
      while (v1 > v0 && isSpace(b[v1 - 1])) v1--;
      if (name === CONTENT_LENGTH) {
        let n = v1 > v0 ? 0 : -1;
        for (let i = v0; i < v1 && n >= 0; i++) n = isDigit(b[i]) ? n * 10 + (b[i]! - 0x30) : -1;
        if (n < 0 || (contentLength >= 0 && n !== contentLength))
          throw new H1Error("bad content-length", "ERR_H1_PARSE");
        contentLength = n;
        continue;
      }
      const value = b.toString("latin1", v0, v1);
      if (name === TRANSFER_ENCODING) chunked = /(?:^|,)\s*chunked\s*$/i.test(value);
      else if (name === CONNECTION) {
        const v = value.toLowerCase();
        if (v.includes("close")) keepAlive = false;
        else if (v.includes("keep-alive")) keepAlive = true;
      } else if (name === KEEP_ALIVE) {
        const t = /timeout=(\d+)/i.exec(value);
        if (t) this.keepAliveMs = Math.max(0, Number(t[1]) * 1000 - 1000);
      } else {
        this.retryAfterSeen++;
        // A repeated header is a list, as undici reports it: no single value.
        this.retryAfter = this.retryAfterSeen === 1 ? value : null;
      }
    }
    this.reusable = keepAlive;
    if (this.isHead || status === 204 || status === 304) this.framing = "none";
    else if (chunked) this.framing = "chunked";
    else if (contentLength >= 0) {
      this.framing = "length";
      this.remaining = contentLength;
    } else {
      this.framing = "close";
      this.reusable = false;
    }
  }

  /** True when the body is complete; leftover bytes make the connection unusable. */
  private readBody(data: Buffer): boolean {
    switch (this.framing) {
      case "none":
        if (data.length > 0) this.reusable = false;
        return true;
      case "close":
        this.take(data);
        return false;
      case "length": {
        const n = Math.min(this.remaining, data.length);
        this.take(data.subarray(0, n));
        this.remaining -= n;
        if (data.length > n) this.reusable = false;
        return this.remaining === 0;
      }
      case "chunked":
        return this.readChunks(data);
    }
  }

  private readChunks(data: Buffer): boolean {
    let at = 0;
    while (at < data.length) {
      if (this.chunkLeft > 0) {
        const n = Math.min(this.chunkLeft, data.length - at);
        this.take(data.subarray(at, at + n));
        at += n;
        this.chunkLeft -= n;
        if (this.chunkLeft === 0) this.chunkLeft = -3; // the CRLF after the data
        continue;
      }
      const eol = data.indexOf("\r\n", at);
      if (eol < 0) {
        this.buf = data.subarray(at);
        if (this.buf.length > HEAD_LIMIT) throw new H1Error("chunk line too long", "ERR_H1_PARSE");
        return false;
      }
      const line = data.toString("latin1", at, eol);
      at = eol + 2;
      if (this.chunkLeft === -3) {
        if (line !== "") throw new H1Error("bad chunk end", "ERR_H1_PARSE");
        this.chunkLeft = -1;
      } else if (this.chunkLeft === -2) {
        // Trailers end at an empty line.
        if (line === "") {
          if (at < data.length) this.reusable = false;
          return true;
        }
      } else {
        const size = /^([0-9a-fA-F]+)[ \t]*(?:;.*)?$/.exec(line);
        if (!size) throw new H1Error("bad chunk size", "ERR_H1_PARSE");
        const n = Number.parseInt(size[1]!, 16);
        this.chunkLeft = n === 0 ? -2 : n;
      }
    }
    return false;
  }

  private take(part: Buffer): void {
    if (part.length === 0) return;
    this.chunks.push(part);
    this.length += part.length;
  }

  private reply(): HttpReply {
    return HttpReply.of(this.status, this.chunks, this.length, this.retryAfter, this.bodyReader);
  }
}
