/**
 * SglangTransport: token-in/token-out client for SGLang's native `/generate`, direct or through
 * a router (SGLang Model Gateway / MilesRouter).
 *
 * One request per model call, each with its own prefix-free rid (see rids.ts); the live rids of
 * each session are kept so that `abortSession` stops exactly one rollout, by exact rid as SGLang
 * requires, and `abortOwn` stops everything this transport sent — never another client's
 * requests on a shared engine (`abortAll` is the explicit engine-wide reset).
 *
 * Failures retry.ts calls transient are retried; with `retry.onTimeout` so is an attempt cut at
 * its time limit (`deadline` scales that limit with the request's token budget), and with
 * `retry.onAbort` a generation the engine aborted, unless this transport asked for that abort.
 */
import { AdminChannel } from "./admin.ts";
import { generatePayload } from "./body.ts";
import { attemptDeadlineMs } from "./deadline.ts";
import { OverlongPromptError, ProviderError, ProviderHttpError, RequestCancelledError } from "./errors.ts";
import { type GenerateReplyJson, readGenerateReply } from "./generate-reply.ts";
import { GenerateStreamReader, streamExchange } from "./generate-stream.ts";
import { createGeneratePool, exchange, type GeneratePool, type HttpReply } from "./http.ts";
import { errorMessage, parseGenerateBody } from "./response.ts";
import {
  backoffDelayMs,
  isRetriableStatus,
  type ResolvedRetry,
  resolveRetry,
  retryReason,
  sleep,
} from "./retry.ts";
import { LiveRids, newRid } from "./rids.ts";
import { budgetCap, buildSamplingParams, capMaxNewTokens, requestedMaxTokens } from "./sampling.ts";
import { SessionTable } from "./sessions.ts";
import type {
  GenerateRequest,
  GenerateResult,
  RoutingPolicy,
  SglangTransportOptions,
  TokenCap,
  TransportStats,
} from "./types.ts";

const KEYED_POLICIES: ReadonlySet<RoutingPolicy> = new Set(["consistent_hashing", "manual"]);

export class SglangTransport {
  readonly stats: TransportStats = {
    calls: 0,
    requests: 0,
    succeeded: 0,
    failed: 0,
    retries: 0,
    retriesByReason: {},
    failuresByName: {},
    finishReasons: { stop: 0, length: 0, abort: 0 },
    overlongPrompts: 0,
    abortCalls: 0,
  };
  readonly sessions: SessionTable;
  private readonly live = new LiveRids();
  /** Live rids this transport itself aborted: their `abort` finish is an answer, not a fault. */
  private readonly stopped = new Set<string>();

  private readonly opts: SglangTransportOptions;
  private readonly origin: string;
  private readonly prefix: string;
  private readonly generatePath: string;
  private readonly pool: GeneratePool;
  private readonly admin: AdminChannel;
  private readonly retry: ResolvedRetry;
  private readonly baseHeaders: Record<string, string>;
  private readonly keyed: boolean;
  private readonly maxPromptLength: number | undefined;
  private closed = false;
  /** Cuts streaming attempts (node:http, outside the pool that close() destroys). */
  private readonly closing = new AbortController();
  /** The server's context length, asked once when no limit is configured (null: unknown). */
  private learnedContext: number | null | undefined;
  private contextQuestion: Promise<number | null> | null = null;

  constructor(opts: SglangTransportOptions) {
    this.opts = opts;
    const url = new URL(opts.baseUrl);
    this.origin = url.origin;
    this.prefix = url.pathname.replace(/\/+$/, "");
    this.generatePath = `${this.prefix}/generate`;
    this.pool = createGeneratePool(this.origin, opts.connections ?? 256, opts.connectTimeoutMs ?? 10_000);
    this.retry = resolveRetry(opts.retry);
    this.keyed = KEYED_POLICIES.has(opts.routingPolicy ?? "cache_aware");
    this.maxPromptLength =
      opts.maxPromptLength ?? (opts.contextLength !== undefined ? opts.contextLength - 1 : undefined);
    this.sessions = new SessionTable(opts.sessionCapacity ?? 10_000);
    this.baseHeaders = { "content-type": "application/json", ...opts.headers };
    if (opts.apiKey) this.baseHeaders.authorization = `Bearer ${opts.apiKey}`;
    this.admin = new AdminChannel(
      this.origin,
      this.prefix,
      this.baseHeaders,
      opts.connectTimeoutMs ?? 10_000,
    );
  }

  /**
   * Builds the exact body and headers `generate` would send, without sending. Throws
   * OverlongPromptError under the same conditions. Does not advance the session's turn counter.
   */
  buildRequest(
    req: GenerateRequest,
    turn = req.turn ?? 0,
    firstOfSession = false,
  ): {
    body: Record<string, unknown>;
    headers: Record<string, string>;
    rid: string;
    maxNewTokens: number | null;
    cappedBy: TokenCap | null;
  } {
    const promptLen = req.inputIds.length;
    if (promptLen === 0) throw new ProviderError("inputIds is empty", { statusCode: 400 });
    if (firstOfSession && this.maxPromptLength !== undefined && promptLen > this.maxPromptLength) {
      throw new OverlongPromptError(
        `prompt has ${promptLen} tokens, over the prompt cap of ${this.maxPromptLength}`,
        promptLen,
        this.maxPromptLength,
      );
    }
    const requested = requestedMaxTokens(req.sampling);
    const limits = {
      contextLength: this.opts.contextLength ?? this.learnedContext ?? undefined,
      maxResponseLength: this.opts.maxResponseLength,
    };
    const maxNewTokens = capMaxNewTokens(requested, promptLen, limits);
    const cappedBy = budgetCap(requested, promptLen, limits, maxNewTokens);
    const rid = req.rid ?? newRid(req.sessionId, turn);
    const body: Record<string, unknown> = {
      input_ids: req.inputIds,
      sampling_params: buildSamplingParams(req.sampling, {
        stopTokenIds: [...(req.stopTokenIds ?? []), ...(this.opts.extraStopTokenIds ?? [])],
        defaultStop: this.opts.stop,
        skipSpecialTokens: this.opts.skipSpecialTokens ?? false,
        maxNewTokens,
      }),
      return_logprob: true,
      rid,
    };
    const lora = req.lora === undefined ? this.opts.lora : req.lora;
    if (lora) body.lora_path = lora;
    if (req.priority !== undefined) body.priority = req.priority;
    if (req.extraKey !== undefined) body.extra_key = req.extraKey;
    const headers = this.keyed
      ? { ...this.baseHeaders, "x-smg-routing-key": req.sessionId }
      : this.baseHeaders;
    return { body, headers, rid, maxNewTokens, cappedBy };
  }

  /** One turn: send, retry transient failures, return sampled ids + logprobs. */
  async generate(req: GenerateRequest): Promise<GenerateResult> {
    if (this.closed) throw new ProviderError("transport is closed");
    if (this.keyed && !req.sessionId) {
      throw new ProviderError(
        `routing policy ${this.opts.routingPolicy} needs a sessionId for X-SMG-Routing-Key`,
      );
    }
    // SGLang's default `max_new_tokens` is 128, which silently truncates most agent turns; with
    // no budget anywhere, a turn may use the context left, so the context length is needed. A
    // requested budget needs it too: agents ask for more than the context leaves (Claude Code's
    // max_tokens is 32000), which the engine would refuse instead of sampling what fits.
    const uncapped = this.opts.contextLength === undefined && this.opts.maxResponseLength === undefined;
    // One question per transport: the first turns of a run all wait on the same answer.
    if (uncapped && this.learnedContext === undefined) {
      this.contextQuestion ??= this.admin.contextLength();
      this.learnedContext = await this.contextQuestion;
    }
    const counted = this.sessions.nextTurn(req.sessionId);
    const first = counted.first;
    const turn = req.turn ?? counted.turn;
    let built: ReturnType<SglangTransport["buildRequest"]>;
    try {
      built = this.buildRequest(req, turn, first);
    } catch (err) {
      if (err instanceof OverlongPromptError) this.stats.overlongPrompts++;
      // A session whose first request never went out stays "new", so its cap is checked again.
      if (first) this.sessions.forget(req.sessionId);
      throw err;
    }
    const streaming = req.onTokens !== undefined;
    if (streaming) built.body.stream = true;
    let payload = generatePayload(built.body);
    let rid = built.rid;
    // Tokens a listener saw: after that, a retry would sample a different turn than it was shown.
    let delivered = false;
    const timeoutMs =
      this.opts.timeoutMs ??
      (this.opts.deadline ? attemptDeadlineMs(this.opts.deadline, built.maxNewTokens) : 3_600_000);
    const started = performance.now();
    this.stats.calls++;
    for (let attempt = 1; ; attempt++) {
      this.stats.requests++;
      this.live.add(req.sessionId, rid);
      let err: unknown = null;
      let reason: string | null;
      try {
        let result: GenerateResult;
        if (streaming) {
          const listener = req.onTokens!;
          const attemptRid = rid;
          const reader = new GenerateStreamReader((ids) => {
            delivered = true;
            listener(ids, attemptRid);
          });
          const url = new URL(this.generatePath, this.origin);
          const signal = req.signal
            ? AbortSignal.any([req.signal, this.closing.signal])
            : this.closing.signal;
          const out = await streamExchange(
            { url, body: payload, headers: built.headers, timeoutMs, signal },
            reader,
          );
          if ("reply" in out) result = this.readReply(out.reply, rid);
          else {
            const { body, ids, logprobs } = out.streamed;
            result = parseGenerateBody(body, rid, { ids, logprobs });
          }
        } else {
          const reply = await exchange(this.pool, {
            method: "POST",
            path: this.generatePath,
            body: payload,
            headers: built.headers,
            timeoutMs,
            signal: req.signal,
            readBody: readGenerateReply,
          });
          result = this.readReply(reply, rid);
        }
        if (result.finishReason !== "abort" || delivered || !this.mayRetryAbort(rid, attempt, req.signal)) {
          this.stats.succeeded++;
          this.stats.finishReasons[result.finishReason]++;
          result.clientLatency = (performance.now() - started) / 1000;
          result.attempts = attempt;
          result.maxNewTokens = built.maxNewTokens;
          result.cappedBy = built.cappedBy;
          return result;
        }
        reason = "abort";
      } catch (caught) {
        // close() destroys the pool under in-flight requests: that is the end, not a connection
        // failure to retry (each retry would fail again on the destroyed pool after a backoff).
        err = this.closed ? new ProviderError("transport is closed", { cause: caught }) : caught;
        reason =
          attempt < this.retry.maxAttempts && !this.closed && !delivered
            ? retryReason(err, this.retry)
            : null;
        if (reason === null) {
          this.stats.failed++;
          const name = err instanceof Error ? err.name : "Error";
          this.stats.failuresByName[name] = (this.stats.failuresByName[name] ?? 0) + 1;
          throw err;
        }
      } finally {
        this.live.delete(req.sessionId, rid);
        this.stopped.delete(rid);
      }
      this.stats.retries++;
      this.stats.retriesByReason[reason] = (this.stats.retriesByReason[reason] ?? 0) + 1;
      // The timed-out attempt may still be generating: abort it (awaited, so the abort reaches
      // the scheduler before the retry does).
      if (reason === "timeout") await this.abort(rid).catch(() => {});
      // A retry after a timeout or an abort gets a rid of its own, so it never collides with the
      // old request while the engine is still tearing that down.
      if (reason === "timeout" || reason === "abort") {
        rid = newRid(req.sessionId, turn);
        payload = generatePayload({ ...built.body, rid });
      }
      try {
        await sleep(backoffDelayMs(attempt, this.retry, err), req.signal);
      } catch (cause) {
        this.stats.failed++;
        throw new RequestCancelledError("cancelled by caller during retry backoff", { cause });
      }
    }
  }

  /**
   * An engine abort is retried only when asked (`retry.onAbort`), while attempts remain, and
   * when nobody on this side wanted it: not the caller (its signal) and not this transport's
   * own abort calls (Ctrl-C in an eval, a rollout stopped by its owner).
   */
  private mayRetryAbort(rid: string, attempt: number, signal: AbortSignal | undefined): boolean {
    return (
      this.retry.onAbort &&
      attempt < this.retry.maxAttempts &&
      !this.closed &&
      !signal?.aborted &&
      !this.stopped.has(rid)
    );
  }

  private readReply(reply: HttpReply, rid: string): GenerateResult {
    if (reply.status !== 200) {
      const message = errorMessage(reply.text);
      // SGLang rejects a prompt longer than the model context with a 400 ValueError.
      if (reply.status === 400 && /context length/i.test(message)) {
        throw new OverlongPromptError(`server: ${message}`, -1, -1);
      }
      throw new ProviderHttpError(`/generate returned ${reply.status}: ${message}`, {
        statusCode: reply.status,
        body: reply.text.slice(0, 2000),
        retryAfter: isRetriableStatus(reply.status) ? reply.retryAfter : null,
      });
    }
    // Read as it arrived (the exchange's readBody), else from the kept bytes.
    let json = reply.read as GenerateReplyJson | undefined;
    if (json === undefined)
      try {
        json = readGenerateReply(reply.bytes);
      } catch (cause) {
        throw new ProviderError(`/generate returned invalid JSON: ${reply.text.slice(0, 200)}`, {
          statusCode: 200,
          cause,
        });
      }
    const { body, ids, logprobs } = json;
    return parseGenerateBody(body, rid, ids && logprobs ? { ids, logprobs } : undefined);
  }

  /**
   * Aborts the live request `rid` on the base URL and every worker. On SGLang this also stops
   * live rids it is a prefix of, which is why this transport's own rids are prefix-free.
   */
  async abort(rid: string): Promise<void> {
    if (!rid) throw new ProviderError("abort needs a non-empty rid (use abortAll)");
    await this.broadcastAbort({ rid, abort_all: false });
  }

  /** Aborts one rollout's in-flight calls, each by its exact rid. */
  abortSession(sessionId: string): Promise<void> {
    return this.abortEach(this.markStopped(this.live.of(sessionId)));
  }

  /** Aborts every request this transport has in flight, and nothing else on the engine. */
  abortOwn(): Promise<void> {
    return this.abortEach(this.markStopped(this.live.all()));
  }

  private markStopped(rids: string[]): string[] {
    for (const rid of rids) this.stopped.add(rid);
    return rids;
  }

  /** Every rid is tried even when one abort fails; the first failure is then reported. */
  private async abortEach(rids: string[]): Promise<void> {
    const results = await Promise.allSettled(rids.map((rid) => this.abort(rid)));
    const failed = results.find((r) => r.status === "rejected");
    if (failed) throw failed.reason;
  }

  /** Aborts everything on every worker (between training steps, before a weight update). */
  async abortAll(): Promise<void> {
    this.markStopped(this.live.all());
    await this.broadcastAbort({ rid: "", abort_all: true });
  }

  /** Worker base URLs behind the router, or `[]` when the base URL is a single server. */
  listWorkers(): Promise<string[]> {
    return this.admin.listWorkers();
  }

  private async broadcastAbort(body: { rid: string; abort_all: boolean }): Promise<void> {
    this.stats.abortCalls++;
    await this.admin.broadcastAbort(body);
  }

  /** Closes all sockets; in-flight requests are destroyed. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.closing.abort();
    await Promise.all([this.pool.destroy().catch(() => {}), this.admin.close()]);
  }
}
