/**
 * Reading one HTTP/1.1 reply off a connection's bytes for the keep-alive client (h1.ts): the
 * head (1xx heads skipped), then the body by its framing — Content-Length, chunked (extensions
 * and trailers read and dropped) or the connection's end — and whether the connection may carry
 * another request afterwards.
 */

/**
 * A whole reply. The body is kept as bytes (a leading UTF-8 BOM dropped, as undici's
 * `body.text()` drops it) and decoded to text only when asked: the `/generate` reader reads its
 * number lists straight from the bytes.
 */
export class HttpReply {
  private decoded: string | null = null;

  constructor(
    readonly status: number,
    readonly bytes: Buffer,
    readonly retryAfter: string | null,
  ) {}

  /** From the body's parts, copied into one buffer of its own. */
  static of(status: number, chunks: readonly Buffer[], length: number, retryAfter: string | null): HttpReply {
    let buf = chunks.length === 1 ? Buffer.from(chunks[0]!) : Buffer.concat(chunks, length);
    if (buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) buf = buf.subarray(3);
    return new HttpReply(status, buf, retryAfter);
  }

  get text(): string {
    this.decoded ??= this.bytes.toString("utf8");
    return this.decoded;
  }
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
const CRLF2 = Buffer.from("\r\n\r\n");

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

  reset(isHead: boolean): void {
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
      const end = data.indexOf(CRLF2);
      if (end < 0) {
        if (data.length > HEAD_LIMIT) throw new H1Error("reply head too large", "ERR_H1_PARSE");
        this.buf = data;
        return null;
      }
      this.readHead(data.toString("latin1", 0, end));
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

  private readHead(head: string): void {
    const lines = head.split("\r\n");
    const m = /^HTTP\/1\.([01]) (\d{3})(?: |$)/.exec(lines[0]!);
    if (!m) throw new H1Error(`bad status line ${JSON.stringify(lines[0]!.slice(0, 80))}`, "ERR_H1_PARSE");
    const status = Number(m[2]);
    // 1xx heads (100 Continue, 103 Early Hints) precede the real one.
    if (status < 200) return;
    this.inHead = false;
    this.status = status;
    let keepAlive = m[1] === "1";
    let contentLength = -1;
    let chunked = false;
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i]!;
      const colon = line.indexOf(":");
      if (colon <= 0) throw new H1Error("bad header line", "ERR_H1_PARSE");
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      if (name === "content-length") {
        if (!/^\d+$/.test(value) || (contentLength >= 0 && Number(value) !== contentLength))
          throw new H1Error("bad content-length", "ERR_H1_PARSE");
        contentLength = Number(value);
      } else if (name === "transfer-encoding") chunked = /(?:^|,)\s*chunked\s*$/i.test(value);
      else if (name === "connection") {
        const v = value.toLowerCase();
        if (v.includes("close")) keepAlive = false;
        else if (v.includes("keep-alive")) keepAlive = true;
      } else if (name === "keep-alive") {
        const t = /timeout=(\d+)/i.exec(value);
        if (t) this.keepAliveMs = Math.max(0, Number(t[1]) * 1000 - 1000);
      } else if (name === "retry-after") {
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
    return HttpReply.of(this.status, this.chunks, this.length, this.retryAfter);
  }
}
