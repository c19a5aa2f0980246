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
import { H1Error, type HttpReply, type ReadBody, ReplyReader } from "./h1-reply.ts";

export { H1Error } from "./h1-reply.ts";

export interface H1Request {
  method: "GET" | "POST";
  path: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** Reads a 200 reply's body where it was received (see ReadBody). */
  readBody?: ReadBody;
}

export interface H1Options {
  host: string;
  port: number;
  connections: number;
  connectTimeoutMs: number;
  /** Idle connections are closed after this (or the server's `Keep-Alive: timeout` less 1 s). */
  keepAliveTimeoutMs: number;
}

type Done = (error: Error | null, reply?: HttpReply) => void;

/** One request, from queued to answered. */
export class H1Call {
  conn: Connection | null = null;
  finished = false;

  constructor(
    readonly client: H1Client,
    readonly isHead: boolean,
    /** The whole request, head and body: one write, so one syscall and no stream write queue. */
    readonly bytes: Buffer,
    /** A large body kept apart from `bytes` (the head): written after it in the same writev. */
    readonly body: Uint8Array | null,
    private readonly done: Done,
    readonly readBody: ReadBody | null,
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

/**
 * Bodies at least this large go out as they are, after the head, rather than copied into one
 * buffer with it: an agent's /generate body grows with its prompt (~300 KB of ids at 48k tokens),
 * and a copy per turn is that much more garbage per turn (external memory, which drives V8's
 * full collections), growing with the history.
 */
const SEPARATE_BODY = 64 * 1024;

/** Head (latin1: validated header bytes) and body in one buffer. */
function requestBytes(head: string, body: string | Uint8Array | undefined, length: number): Buffer {
  const out = Buffer.allocUnsafe(head.length + length);
  const at = out.write(head, 0, "latin1");
  if (typeof body === "string") out.write(body, at, "utf8");
  else if (body !== undefined) out.set(body, at);
  return out;
}

/**
 * Queued requests go out at once when this many wait, not only in the check phase: a poll phase
 * that handles a burst of replies makes a burst of requests, and held back until the last reply
 * was handled (~0.2 ms each in a single-turn rollout) the first of them left the engine idle
 * meanwhile. Eight at a time still reach a busy engine together.
 */
const BURST = 8;

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const BAD_VALUE = /[\r\n\0]/;

export class H1Client {
  private readonly idle: Connection[] = [];
  private readonly all = new Set<Connection>();
  private readonly queue: H1Call[] = [];
  private readonly hostHeader: string;
  private destroyed = false;
  private scheduled = false;
  /**
   * One timer closes idle connections past their keep-alive time, rather than a timer set and
   * cleared per request on each connection (~1% of a single-turn rollout's CPU). An expired idle
   * connection is never reused either way (`connection()` checks).
   */
  private sweepTimer: NodeJS.Timeout | null = null;
  private sweepAt = Number.POSITIVE_INFINITY;

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
    const apart = typeof body === "object" && body.length >= SEPARATE_BODY ? body : null;
    const bytes = apart ? Buffer.from(head, "latin1") : requestBytes(head, body, length);
    const call = new H1Call(this, head.startsWith("HEAD "), bytes, apart, done, req.readBody ?? null);
    if (this.destroyed) call.finish(new H1Error("client is destroyed", "ERR_H1_DESTROYED"));
    else {
      this.queue.push(call);
      if (this.queue.length >= BURST) this.sendQueued();
      else this.schedule();
    }
    return call;
  }

  /**
   * Queued calls go out in the check phase, after this loop iteration's poll phase (as undici's
   * do at pipelining 1), or as soon as BURST wait: requests made while the iteration's replies
   * were handled reach the server in bursts, so a server with spare capacity reads them in one
   * wake-up instead of one per request; and a FIN or stray bytes already received on an idle
   * socket were mostly read before that socket is reused (a request lost to one is a connection
   * error, which the transport retries).
   */
  private schedule(): void {
    if (this.scheduled || this.queue.length === 0) return;
    this.scheduled = true;
    setImmediate(this.flush);
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    this.sendQueued();
  };

  private sendQueued(): void {
    const queue = this.queue;
    let sent = 0;
    while (sent < queue.length && !this.destroyed) {
      const c = this.connection();
      if (c === null) break;
      c.start(queue[sent++]!);
    }
    queue.splice(0, sent);
  }

  /** A live idle connection, else a new one while under the limit, else null. */
  private connection(): Connection | null {
    const now = performance.now();
    for (let c = this.idle.pop(); c !== undefined; c = this.idle.pop()) {
      if (now < c.expiresAt) return c;
      c.destroy(null);
    }
    if (this.all.size >= this.o.connections) return null;
    const c = new Connection(this);
    this.all.add(c);
    return c;
  }

  dequeue(call: H1Call): void {
    const i = this.queue.indexOf(call);
    if (i >= 0) this.queue.splice(i, 1);
  }

  /** A connection finished a reply and can take another. */
  released(c: Connection): void {
    this.idle.push(c);
    c.rest();
    this.sweepBy(c.expiresAt);
    this.schedule();
  }

  private sweepBy(at: number): void {
    if (at >= this.sweepAt || this.destroyed) return;
    if (this.sweepTimer !== null) clearTimeout(this.sweepTimer);
    this.sweepAt = at;
    this.sweepTimer = setTimeout(this.sweep, Math.max(0, at - performance.now()));
    this.sweepTimer.unref();
  }

  private readonly sweep = (): void => {
    this.sweepTimer = null;
    this.sweepAt = Number.POSITIVE_INFINITY;
    const now = performance.now();
    let next = Number.POSITIVE_INFINITY;
    for (const c of [...this.idle]) {
      if (now >= c.expiresAt) c.destroy(null);
      else if (c.expiresAt < next) next = c.expiresAt;
    }
    this.sweepBy(next);
  };

  /** A connection is gone; a queued call gets a new one. */
  removed(c: Connection): void {
    this.all.delete(c);
    const i = this.idle.indexOf(c);
    if (i >= 0) this.idle.splice(i, 1);
    if (!this.destroyed) this.schedule();
  }

  /** Closes every socket; calls in flight or queued fail. */
  async destroy(): Promise<void> {
    this.destroyed = true;
    if (this.sweepTimer !== null) clearTimeout(this.sweepTimer);
    this.sweepTimer = null;
    const error = new H1Error("client is destroyed", "ERR_H1_DESTROYED");
    for (const call of this.queue.splice(0)) call.finish(error);
    for (const c of [...this.all]) c.destroy(error);
  }
}

/** Bytes per socket read: a typical `/generate` reply (a few KB) arrives in one. */
const READ_BUFFER = 16 * 1024;

/** One socket and the reply it is reading. */
class Connection {
  private readonly socket: Socket;
  private connected = false;
  private connectTimer: NodeJS.Timeout | null = null;
  private call: H1Call | null = null;
  private gone = false;
  private readonly reader = new ReplyReader();
  expiresAt = Number.POSITIVE_INFINITY;

  constructor(private readonly client: H1Client) {
    const { host, port, connectTimeoutMs } = client.o;
    // `onread`: the socket reads into this connection's own buffer and hands the bytes straight
    // to the reader — no Buffer per read and no readable-stream machinery per packet. The reader
    // copies what it must keep beyond the call.
    const read = Buffer.allocUnsafe(READ_BUFFER);
    this.socket = connect({
      host,
      port,
      onread: {
        buffer: read,
        callback: (n) => {
          this.onData(read, n);
          return true;
        },
      },
    });
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
    this.socket.on("end", () => this.onEnd());
    this.socket.on("error", (err: Error) => this.destroy(err));
    this.socket.on("close", () => this.destroy(null));
  }

  start(call: H1Call): void {
    this.socket.ref();
    this.call = call;
    call.conn = this;
    this.reader.reset(call.isHead, call.readBody);
    if (call.body === null) this.socket.write(call.bytes);
    else {
      // Corked: head and body leave in one writev.
      this.socket.cork();
      this.socket.write(call.bytes);
      this.socket.write(call.body);
      this.socket.uncork();
    }
  }

  /** Idle: the process may exit, and the client's sweep closes the socket after the keep-alive time. */
  rest(): void {
    this.socket.unref();
  }

  private onData(buf: Buffer, n: number): void {
    const call = this.call;
    if (call === null) {
      // Bytes nobody asked for: the connection cannot be trusted with another request.
      this.destroy(null);
      return;
    }
    let r: ReturnType<ReplyReader["push"]>;
    try {
      r = this.reader.push(buf, n);
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
