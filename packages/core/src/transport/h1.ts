/**
 * A small HTTP/1.1 keep-alive client for the `/generate` hot path over plain TCP.
 *
 * Why not undici here: a short rollout is one request and one ~5 KB JSON reply, and undici's
 * per-request machinery (request object and header validation, the wasm parser calling back into
 * JS per header, its dispatch layers) cost as much CPU as the rest of the transport. This client
 * does only what that exchange needs — one request at a time per connection, replies framed by
 * Content-Length, chunked encoding or the connection's end, 1xx heads skipped — and hands
 * everything else (TLS, the admin channel) to undici. Failures carry a `code` the exchange maps
 * to the same typed errors as undici's.
 */
import { connect, type Socket } from "node:net";
import type { HttpReply } from "./http.ts";

export interface H1Request {
  method: "GET" | "POST";
  path: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
}

export interface H1Options {
  host: string;
  port: number;
  connections: number;
  connectTimeoutMs: number;
  /** Idle connections are closed after this (or the server's `Keep-Alive: timeout` less 1 s). */
  keepAliveTimeoutMs: number;
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

type Done = (error: Error | null, reply?: HttpReply) => void;

/** One request, from queued to answered. */
export class H1Call {
  conn: Connection | null = null;
  finished = false;

  constructor(
    readonly client: H1Client,
    readonly head: string,
    readonly body: string | Uint8Array | undefined,
    private readonly done: Done,
  ) {}

  /** Cuts the call: a queued one leaves the queue, a sent one loses its connection. */
  abort(error: Error): void {
    if (this.finished) return;
    if (this.conn) this.conn.destroy(error);
    else {
      this.client.dequeue(this);
      this.finish(error);
    }
  }

  finish(error: Error | null, reply?: HttpReply): void {
    if (this.finished) return;
    this.finished = true;
    this.done(error, reply);
  }
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const BAD_VALUE = /[\r\n\0]/;

export class H1Client {
  private readonly idle: Connection[] = [];
  private readonly all = new Set<Connection>();
  private readonly queue: H1Call[] = [];
  private readonly hostHeader: string;
  private destroyed = false;

  constructor(readonly o: H1Options) {
    this.hostHeader = o.port === 80 ? o.host : `${o.host}:${o.port}`;
  }

  /** Sends one request; `done` is called exactly once. Throws only for a malformed request. */
  send(req: H1Request, done: Done): H1Call {
    let head = `${req.method} ${req.path} HTTP/1.1\r\nhost: ${this.hostHeader}\r\nconnection: keep-alive\r\n`;
    for (const name in req.headers) {
      const value = req.headers[name]!;
      if (!TOKEN.test(name) || BAD_VALUE.test(value))
        throw new H1Error(`invalid header ${JSON.stringify(name)}`, "ERR_HTTP_INVALID_HEADER");
      head += `${name}: ${value}\r\n`;
    }
    const body = req.body;
    const length = body === undefined ? 0 : typeof body === "string" ? Buffer.byteLength(body) : body.length;
    if (body !== undefined || req.method === "POST") head += `content-length: ${length}\r\n`;
    head += "\r\n";
    const call = new H1Call(this, head, body, done);
    if (this.destroyed) call.finish(new H1Error("client is destroyed", "ERR_H1_DESTROYED"));
    else this.dispatch(call);
    return call;
  }

  private dispatch(call: H1Call): void {
    const now = performance.now();
    for (let c = this.idle.pop(); c !== undefined; c = this.idle.pop()) {
      if (now < c.expiresAt) {
        c.start(call);
        return;
      }
      c.destroy(null);
    }
    if (this.all.size < this.o.connections) {
      const c = new Connection(this);
      this.all.add(c);
      c.start(call);
    } else this.queue.push(call);
  }

  dequeue(call: H1Call): void {
    const i = this.queue.indexOf(call);
    if (i >= 0) this.queue.splice(i, 1);
  }

  /** A connection finished a reply and can take another. */
  released(c: Connection): void {
    const next = this.queue.shift();
    if (next) c.start(next);
    else {
      this.idle.push(c);
      c.rest();
    }
  }

  /** A connection is gone; a queued call gets a new one. */
  removed(c: Connection): void {
    this.all.delete(c);
    const i = this.idle.indexOf(c);
    if (i >= 0) this.idle.splice(i, 1);
    const next = this.destroyed ? undefined : this.queue.shift();
    if (next) this.dispatch(next);
  }

  /** Closes every socket; calls in flight or queued fail. */
  async destroy(): Promise<void> {
    this.destroyed = true;
    const error = new H1Error("client is destroyed", "ERR_H1_DESTROYED");
    for (const call of this.queue.splice(0)) call.finish(error);
    for (const c of [...this.all]) c.destroy(error);
  }
}

/** One socket and the reply it is reading. */
class Connection {
  private readonly socket: Socket;
  private connected = false;
  private connectTimer: NodeJS.Timeout | null = null;
  private idleTimer: NodeJS.Timeout | null = null;
  private call: H1Call | null = null;
  private gone = false;
  private readonly reader = new ReplyReader();
  expiresAt = Number.POSITIVE_INFINITY;

  constructor(private readonly client: H1Client) {
    const { host, port, connectTimeoutMs } = client.o;
    this.socket = connect({ host, port });
    this.socket.setNoDelay(true);
    if (connectTimeoutMs > 0)
      this.connectTimer = setTimeout(
        () =>
          this.destroy(new H1Error(`connect timeout after ${connectTimeoutMs} ms`, "ERR_H1_CONNECT_TIMEOUT")),
        connectTimeoutMs,
      );
    this.socket.once("connect", () => {
      this.connected = true;
      if (this.connectTimer) clearTimeout(this.connectTimer);
      this.connectTimer = null;
    });
    this.socket.on("data", (chunk: Buffer) => this.onData(chunk));
    this.socket.on("end", () => this.onEnd());
    this.socket.on("error", (err: Error) => this.destroy(err));
    this.socket.on("close", () => this.destroy(null));
  }

  start(call: H1Call): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    this.socket.ref();
    this.call = call;
    call.conn = this;
    this.reader.reset(call);
    const body = call.body;
    if (body === undefined) this.socket.write(call.head, "latin1");
    else if (typeof body === "string") this.socket.write(call.head + body);
    else {
      this.socket.cork();
      this.socket.write(call.head, "latin1");
      this.socket.write(body);
      this.socket.uncork();
    }
  }

  /** Idle: the process may exit, and the socket closes after the keep-alive time. */
  rest(): void {
    this.socket.unref();
    const ms = this.expiresAt - performance.now();
    this.idleTimer = setTimeout(() => this.destroy(null), Math.max(0, ms));
    this.idleTimer.unref();
  }

  private onData(chunk: Buffer): void {
    const call = this.call;
    if (call === null) {
      // Bytes nobody asked for: the connection cannot be trusted with another request.
      this.destroy(null);
      return;
    }
    let r: ReturnType<ReplyReader["push"]>;
    try {
      r = this.reader.push(chunk);
    } catch (e) {
      this.destroy(e as Error);
      return;
    }
    if (r === null) return;
    this.call = null;
    call.conn = null;
    const keepAliveMs = r.keepAliveMs ?? this.client.o.keepAliveTimeoutMs;
    this.expiresAt = performance.now() + keepAliveMs;
    call.finish(null, r.reply);
    if (r.reusable && keepAliveMs > 0) this.client.released(this);
    else this.destroy(null);
  }

  private onEnd(): void {
    const call = this.call;
    if (call !== null) {
      const reply = this.reader.end();
      if (reply !== null) {
        this.call = null;
        call.conn = null;
        call.finish(null, reply);
      }
    }
    this.destroy(null);
  }

  /** Ends the connection; the call it was serving (if any) fails with `error` (or "closed"). */
  destroy(error: Error | null): void {
    if (this.gone) return;
    this.gone = true;
    if (this.connectTimer) clearTimeout(this.connectTimer);
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.socket.destroy();
    const call = this.call;
    this.call = null;
    if (call) {
      call.conn = null;
      call.finish(
        error ??
          new H1Error(
            this.connected ? "other side closed" : "connection closed before it opened",
            "ERR_H1_SOCKET_CLOSED",
          ),
      );
    }
    this.client.removed(this);
  }
}

type Framing = "length" | "chunked" | "close" | "none";

const HEAD_LIMIT = 64 * 1024;
const CRLF2 = Buffer.from("\r\n\r\n");

/** Reads one reply from the bytes of a connection: head, then the body by its framing. */
class ReplyReader {
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

  reset(call: H1Call): void {
    this.buf = null;
    this.inHead = true;
    this.chunks = [];
    this.length = 0;
    this.chunkLeft = -1;
    this.retryAfter = null;
    this.retryAfterSeen = 0;
    this.keepAliveMs = null;
    this.isHead = call.head.startsWith("HEAD ");
  }

  /** The reply when these bytes completed it, else null. */
  push(chunk: Buffer): { reply: HttpReply; reusable: boolean; keepAliveMs: number | null } | null {
    let data = this.buf === null ? chunk : Buffer.concat([this.buf, chunk]);
    this.buf = null;
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
      reply: { status: this.status, text: this.text(), retryAfter: this.retryAfter },
      reusable: this.reusable,
      keepAliveMs: this.keepAliveMs,
    };
  }

  /** The connection ended: the reply, if its framing is "until the end". */
  end(): HttpReply | null {
    if (this.inHead || this.framing !== "close") return null;
    return { status: this.status, text: this.text(), retryAfter: this.retryAfter };
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

  /** UTF-8, a leading BOM dropped (as undici's `body.text()`). */
  private text(): string {
    const { chunks, length } = this;
    if (length === 0) return "";
    const buf = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, length);
    const bom = buf.length > 2 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf;
    return buf.toString("utf8", bom ? 3 : 0, buf.length);
  }
}
