/**
 * SGLang's streaming `/generate` (`"stream": true`), read as the engine samples.
 *
 * The reply is `text/event-stream`: one `data: <json>` event per chunk, no `event:` lines, ended
 * by `data: [DONE]`. A chunk carries `output_ids`, `text` and `meta_info` (with
 * `output_token_logprobs`); only the last has a `finish_reason`. By default every chunk is
 * cumulative (the whole completion so far); a server run with `--incremental-streaming-output`
 * sends only what is new. Both arrive here, told apart per chunk by `meta_info.completion_tokens`
 * (always the total so far): a list as long as the total is cumulative, one that brings what was
 * read up to the total is a delta. A mid-stream failure is a chunk `{"error": {"message"}}`.
 *
 * The turn is assembled from `output_token_logprobs` exactly as the whole-body reader takes it
 * (ids and logprobs as sent, never re-derived), so a streamed turn equals the unstreamed one.
 */
import type { ClientRequest, IncomingMessage } from "node:http";
import {
  ProviderConnectionError,
  ProviderError,
  ProviderTimeoutError,
  RequestCancelledError,
  ResponseShapeError,
} from "./errors.ts";
import { HttpReply } from "./h1-reply.ts";

/** Called whenever new tokens arrived: every id sampled so far, and the request's rid. */
export type TokensListener = (ids: readonly number[], rid: string) => void;

/** The assembled turn, in the shape `parseGenerateBody` reads (the list read separately). */
export interface StreamedReply {
  body: Record<string, unknown>;
  ids: number[];
  logprobs: number[];
}

export class GenerateStreamReader {
  readonly ids: number[] = [];
  readonly logprobs: number[] = [];
  private pending = "";
  private last: Record<string, unknown> | null = null;
  private text = "";
  private done = false;

  /** `onTokens` fires after each chunk that brought tokens. */
  constructor(private readonly onTokens: (ids: readonly number[]) => void) {}

  /** Feeds decoded body text; events may split anywhere. */
  push(text: string): void {
    this.pending += text;
    const datas: string[] = [];
    for (;;) {
      const end = this.pending.indexOf("\n\n");
      if (end < 0) break;
      const data = dataOf(this.pending.slice(0, end));
      this.pending = this.pending.slice(end + 2);
      if (data !== null) datas.push(data);
    }
    // A cumulative chunk repeats every chunk before it: of a burst that arrived together, only
    // the newest is read (a turn streamed token by token would otherwise cost the square of
    // its length in parsing).
    let first = 0;
    let newest: { at: number; chunk: Record<string, unknown> } | null = null;
    for (let k = datas.length - 1; k >= 0; k--) {
      if (datas[k] === "[DONE]") continue;
      newest = { at: k, chunk: chunkOf(datas[k]!) };
      if (isCumulative(newest.chunk)) first = k;
      break;
    }
    for (let k = first; k < datas.length; k++) {
      if (datas[k] === "[DONE]") this.done = true;
      else this.absorb(newest?.at === k ? newest.chunk : chunkOf(datas[k]!));
    }
  }

  /** The finished turn; throws when the stream ended before a finish reason and `[DONE]`. */
  finish(): StreamedReply {
    if (this.pending.trim() !== "") this.push("\n\n");
    this.pending = "";
    const meta = this.last?.["meta_info"] as Record<string, unknown> | undefined;
    if (!this.last || meta?.["finish_reason"] == null)
      throw new ProviderConnectionError("/generate stream ended before its final chunk");
    if (!this.done) throw new ProviderConnectionError("/generate stream ended without data: [DONE]");
    const body = {
      ...this.last,
      text: this.text,
      output_ids: [],
      meta_info: { ...meta, output_token_logprobs: [] },
    };
    return { body, ids: this.ids, logprobs: this.logprobs };
  }

  private absorb(chunk: Record<string, unknown>): void {
    const meta = chunk["meta_info"] as Record<string, unknown> | undefined;
    const tuples = meta?.["output_token_logprobs"];
    const total = meta?.["completion_tokens"];
    if (!meta || !Array.isArray(tuples) || typeof total !== "number")
      throw new ResponseShapeError(
        "/generate stream: a chunk lacks meta_info.output_token_logprobs or completion_tokens",
      );
    const had = this.ids.length;
    let from: number;
    if (tuples.length === total) from = 0;
    else if (had + tuples.length === total) from = had;
    else
      throw new ResponseShapeError(
        `/generate stream: a chunk has ${tuples.length} logprobs after ${had} read, completion_tokens ${total}`,
      );
    // A cumulative chunk repeats what was read: only its tail is new.
    for (let i = from === 0 ? had : 0; i < tuples.length; i++) {
      const t = tuples[i] as unknown[];
      if (typeof t?.[0] !== "number" || typeof t?.[1] !== "number")
        throw new ResponseShapeError(`/generate stream: output_token_logprobs[${i}] is not [logprob, id, …]`);
      this.logprobs.push(t[0]);
      this.ids.push(t[1]);
    }
    const text = chunk["text"];
    if (typeof text === "string") this.text = from === 0 ? text : this.text + text;
    this.last = chunk;
    if (this.ids.length > had) this.onTokens(this.ids);
  }
}

/** An event's data (null: no data field, e.g. a comment). */
function dataOf(raw: string): string | null {
  let data: string | null = null;
  for (const line of raw.split("\n")) {
    // Comments (`:`) and other fields are not SGLang's, but SSE says to skip them.
    if (line.startsWith("data:")) data = (data === null ? "" : `${data}\n`) + line.slice(5).trimStart();
  }
  return data;
}

/** A chunk's JSON; an `{"error"}` chunk (SGLang's mid-stream failure) is thrown. */
function chunkOf(data: string): Record<string, unknown> {
  let chunk: Record<string, unknown>;
  try {
    chunk = JSON.parse(data);
  } catch (cause) {
    throw new ResponseShapeError(`/generate stream: a chunk is not JSON: ${data.slice(0, 200)}`, { cause });
  }
  const error = chunk["error"] as { message?: unknown } | undefined;
  if (error && typeof error === "object")
    throw new ProviderError(`/generate stream failed: ${String(error.message ?? JSON.stringify(error))}`, {
      statusCode: 400,
      body: data.slice(0, 2000),
    });
  return chunk;
}

function isCumulative(chunk: Record<string, unknown>): boolean {
  const meta = chunk["meta_info"] as Record<string, unknown> | undefined;
  const tuples = meta?.["output_token_logprobs"];
  return Array.isArray(tuples) && tuples.length === meta?.["completion_tokens"];
}

export interface StreamRequest {
  url: URL;
  body: string | Uint8Array;
  headers: Record<string, string>;
  timeoutMs: number;
  signal?: AbortSignal;
}

export type StreamOutcome = { reply: HttpReply } | { streamed: StreamedReply };

/**
 * One streaming attempt over node:http (loaded on first use: a run that never streams never
 * loads it). A non-200 answer comes back whole, for the transport's usual error mapping.
 */
export async function streamExchange(
  req: StreamRequest,
  reader: GenerateStreamReader,
): Promise<StreamOutcome> {
  if (req.signal?.aborted) throw new RequestCancelledError("/generate stream cancelled by caller");
  const http = req.url.protocol === "https:" ? await import("node:https") : await import("node:http");
  let timedOut = false;
  let request: ClientRequest | null = null;
  const onAbort = () => request?.destroy(new Error("cancelled by caller"));
  const timer = setTimeout(() => {
    timedOut = true;
    request?.destroy(new Error(`timed out after ${req.timeoutMs} ms`));
  }, req.timeoutMs);
  req.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    return await new Promise<StreamOutcome>((resolve, reject) => {
      request = http.request(
        req.url,
        { method: "POST", headers: { ...req.headers, accept: "text/event-stream" } },
        (res: IncomingMessage) => {
          const status = res.statusCode ?? 0;
          const chunks: Buffer[] = [];
          let length = 0;
          // A character may be split between two reads.
          const utf8 = new TextDecoder();
          res.on("data", (b: Buffer) => {
            if (status !== 200) {
              chunks.push(b);
              length += b.length;
              return;
            }
            try {
              reader.push(utf8.decode(b, { stream: true }));
            } catch (e) {
              request?.destroy();
              reject(e);
            }
          });
          res.on("error", reject);
          res.on("end", () => {
            if (status !== 200) {
              const ra = res.headers["retry-after"];
              resolve({ reply: HttpReply.of(status, chunks, length, typeof ra === "string" ? ra : null) });
              return;
            }
            try {
              resolve({ streamed: reader.finish() });
            } catch (e) {
              reject(e);
            }
          });
        },
      );
      request.setNoDelay(true);
      request.on("error", reject);
      request.end(req.body);
    });
  } catch (err) {
    if (err instanceof ProviderError) throw err;
    if (req.signal?.aborted)
      throw new RequestCancelledError("/generate stream cancelled by caller", { cause: err });
    if (timedOut)
      throw new ProviderTimeoutError(`/generate stream exceeded ${req.timeoutMs} ms`, { cause: err });
    throw new ProviderConnectionError(`connection error on /generate stream: ${String(err)}`, { cause: err });
  } finally {
    clearTimeout(timer);
    req.signal?.removeEventListener("abort", onAbort);
  }
}
