/**
 * One HTTP exchange, with failures mapped to typed errors, over an undici Pool or (plain-HTTP
 * `/generate`, see h1.ts) the small keep-alive client.
 *
 * With undici the reply is collected by a dispatch handler rather than `Pool.request` +
 * `body.text()`: a whole-body JSON reply needs no Readable stream, AbortController or async
 * resource per call. Either way the body is read as `body.text()` reads it (UTF-8, a leading
 * BOM dropped), and decoded only when its text is asked for. undici's default 300 s
 * headers/body timeouts are disabled on the Pool: a long generation sends no byte until it
 * finishes, so the only limit is the explicit per-attempt `timeoutMs` enforced here.
 */
import type { IncomingHttpHeaders } from "node:http";
import type { Dispatcher } from "undici";
import { Pool } from "../undici.ts";
import { ProviderConnectionError, ProviderTimeoutError, RequestCancelledError } from "./errors.ts";
import { H1Client } from "./h1.ts";
import { HttpReply, type ReadBody } from "./h1-reply.ts";

export type { HttpReply } from "./h1-reply.ts";

export interface HttpRequest {
  method: "GET" | "POST";
  path: string;
  /** JSON text, or its bytes (a Buffer is sent as is). */
  body?: string | Uint8Array;
  headers?: Record<string, string>;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Reads a 200 reply's body as it arrives, before it is copied (`reply.read`; see ReadBody). */
  readBody?: ReadBody;
}

export function createPool(origin: string, connections: number, connectTimeoutMs: number): Pool {
  return new Pool(origin, {
    connections,
    headersTimeout: 0,
    bodyTimeout: 0,
    connectTimeout: connectTimeoutMs,
    keepAliveTimeout: 30_000,
    pipelining: 1,
  });
}

/** Where `/generate` goes: the keep-alive client for http:, undici otherwise (TLS). */
export type GeneratePool = Pool | H1Client;

export function createGeneratePool(
  origin: string,
  connections: number,
  connectTimeoutMs: number,
): GeneratePool {
  const url = new URL(origin);
  if (url.protocol !== "http:") return createPool(origin, connections, connectTimeoutMs);
  return new H1Client({
    host: url.hostname.replace(/^\[(.*)\]$/, "$1"),
    port: url.port === "" ? 80 : Number(url.port),
    connections,
    connectTimeoutMs,
    keepAliveTimeoutMs: 30_000,
  });
}

type Outcome = { ok: true; reply: HttpReply } | { ok: false; error: unknown };

/**
 * Collects one reply. Settles exactly once: on the reply's end, on an undici error, or at once
 * when the attempt is cut (time limit or the caller's signal) — a request still queued for a
 * connection is aborted when it reaches one.
 */
class ReplyCollector implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | null = null;
  private cut: Error | null = null;
  private done = false;
  private status = 0;
  private retryAfter: string | null = null;
  private chunks: Buffer[] = [];
  private length = 0;

  constructor(
    private readonly settle: (o: Outcome) => void,
    private readonly readBody: ReadBody | null,
  ) {}

  abort(error: Error): void {
    if (this.done) return;
    this.cut = error;
    this.finish({ ok: false, error });
    this.controller?.abort(error);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.cut) controller.abort(this.cut);
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: IncomingHttpHeaders,
  ): void {
    // 1xx informational heads come before the real one.
    if (statusCode < 200) return;
    this.status = statusCode;
    const ra = headers["retry-after"];
    this.retryAfter = typeof ra === "string" ? ra : null;
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.chunks.push(chunk);
    this.length += chunk.length;
  }

  onResponseEnd(): void {
    const reply = HttpReply.of(this.status, this.chunks, this.length, this.retryAfter, this.readBody);
    this.finish({ ok: true, reply });
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.finish({ ok: false, error });
  }

  private finish(o: Outcome): void {
    if (this.done) return;
    this.done = true;
    this.chunks = [];
    this.settle(o);
  }
}

/** Codes of a request we built wrong: our bug, never to be disguised as retriable. */
const MALFORMED = new Set(["UND_ERR_INVALID_ARG", "ERR_HTTP_INVALID_HEADER"]);

/** Starts one request; the returned handle cuts it (at once, whatever state it is in). */
function send(pool: GeneratePool, req: HttpRequest, settle: (o: Outcome) => void): { abort(e: Error): void } {
  if (pool instanceof H1Client)
    return pool.send(req, (error, reply) =>
      settle(error ? { ok: false, error } : { ok: true, reply: reply! }),
    );
  const collector = new ReplyCollector(settle, req.readBody ?? null);
  pool.dispatch(
    { method: req.method, path: req.path, body: req.body ?? null, headers: req.headers },
    collector,
  );
  return collector;
}

/** Sends one request and reads the whole body as text; never retries. */
export async function exchange(pool: GeneratePool, req: HttpRequest): Promise<HttpReply> {
  const user = req.signal;
  if (user?.aborted) throw new RequestCancelledError(`request to ${req.path} cancelled by caller`);
  let settle!: (o: Outcome) => void;
  const outcome = new Promise<Outcome>((resolve) => {
    settle = resolve;
  });
  let timedOut = false;
  let handle: { abort(e: Error): void };
  try {
    handle = send(pool, req, settle);
  } catch (error) {
    settle({ ok: false, error });
    handle = { abort() {} };
  }
  const timer = setTimeout(() => {
    timedOut = true;
    handle.abort(new Error(`timed out after ${req.timeoutMs} ms`));
  }, req.timeoutMs);
  const onUserAbort = () => handle.abort(new Error("cancelled by caller"));
  const waiters = user ? abortWaiters(user) : null;
  waiters?.add(onUserAbort);
  let o: Outcome;
  try {
    o = await outcome;
  } finally {
    clearTimeout(timer);
    waiters?.delete(onUserAbort);
  }
  if (o.ok) return o.reply;
  const err = o.error;
  if (MALFORMED.has((err as { code?: string })?.code ?? "")) throw err;
  if (user?.aborted)
    throw new RequestCancelledError(`request to ${req.path} cancelled by caller`, { cause: err });
  if (timedOut)
    throw new ProviderTimeoutError(`request to ${req.path} exceeded ${req.timeoutMs} ms`, { cause: err });
  throw new ProviderConnectionError(`connection error on ${req.path}: ${describe(err)}`, { cause: err });
}

/**
 * The exchanges waiting on each caller signal, behind one listener per signal. A run's rollouts
 * share a signal (every rollout without a deadline listens on the run's, or on one that never
 * aborts), and EventTarget's add/removeEventListener walk that signal's whole listener list to
 * find duplicates: one listener per exchange on it made each request's pair O(requests in
 * flight), ~3% of a single-turn rollout's CPU at 64 in flight. A Set's add/delete is O(1).
 */
const waitersBySignal = new WeakMap<AbortSignal, Set<() => void>>();

function abortWaiters(signal: AbortSignal): Set<() => void> {
  let waiters = waitersBySignal.get(signal);
  if (waiters === undefined) {
    const own = new Set<() => void>();
    waiters = own;
    waitersBySignal.set(signal, own);
    signal.addEventListener(
      "abort",
      () => {
        waitersBySignal.delete(signal);
        for (const cut of [...own]) cut();
      },
      { once: true },
    );
  }
  return waiters;
}

function describe(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as Error & { code?: string }).code;
    return code ? `${code} ${err.message}` : err.message;
  }
  return String(err);
}
