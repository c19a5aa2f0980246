/**
 * `POST /generate` on a worker: faults, parsing, then a JSON body (single or batch) or an SSE
 * stream of cumulative chunks ending in `data: [DONE]`.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { sendJson } from "envroll/internal/http/index.ts";
import type { EngineCore, JobResult } from "./core.ts";
import { errorBody } from "./error-body.ts";
import { type GenerateJob, parseGenerate } from "./request.ts";
import { buildChunk, buildResponse } from "./response.ts";
import type { FaultKind } from "./types.ts";

export interface GenerateContext {
  core: EngineCore;
  incrementalStreaming: boolean;
  /** Resolves when the engine shuts down, so stalled requests let go. */
  closing: Promise<void>;
  stallMs: number;
}

/**
 * Applies a drawn fault. Returns true when the request has been fully handled (failed),
 * false to go on generating (the `abort` fault cuts the generation instead).
 */
export async function applyFault(
  kind: FaultKind | null,
  req: IncomingMessage,
  res: ServerResponse,
  ctx: GenerateContext,
): Promise<boolean> {
  switch (kind) {
    case null:
    case "abort":
      return false;
    case "5xx":
      // The shape SGLang uses when the scheduler aborts a request with status 503.
      sendJson(res, 503, {
        object: "error",
        message: "injected fault: service unavailable",
        type: "503",
        param: null,
        code: 503,
      });
      return true;
    case "429":
      // What the gateway answers when its queue is full …
      sendJson(res, 429, errorBody("injected fault: too many requests"));
      return true;
    case "408":
      // … and when a request waited in its queue too long.
      sendJson(res, 408, errorBody("injected fault: request timed out in queue"));
      return true;
    case "reset":
      req.socket.destroy();
      return true;
    case "stall": {
      // Hold the request past any sane client timeout; let go when the client leaves or we close.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, ctx.stallMs);
        }),
        new Promise<void>((resolve) => res.once("close", () => resolve())),
        ctx.closing,
      ]);
      clearTimeout(timer);
      req.socket.destroy();
      return true;
    }
  }
}

export async function handleGenerate(
  body: unknown,
  fault: FaultKind | null,
  res: ServerResponse,
  ctx: GenerateContext,
): Promise<void> {
  const { core } = ctx;
  const parsed = parseGenerate(body, core.opts.tokenizer);
  for (const job of parsed.jobs) {
    core.checkRid(job);
    core.checkContext(job);
  }
  const cutFraction = fault === "abort" ? 0.5 : undefined;
  const timed = core.opts.latencyMs > 0 || core.opts.tokenLatencyMs > 0;
  // SGLang aborts a request whose client disconnected; only worth watching when it can wait.
  let signal: AbortSignal | undefined;
  if (timed || parsed.stream) {
    const ac = new AbortController();
    res.once("close", () => {
      if (!res.writableFinished) ac.abort();
    });
    signal = ac.signal;
  }
  if (parsed.stream) return streamGenerate(parsed.jobs, parsed.batch, cutFraction, signal, res, ctx);
  const results = await Promise.all(parsed.jobs.map((job) => core.run(job, { cutFraction, signal })));
  const bodies = results.map((r, i) => buildResponse(parsed.jobs[i]!, r, core.opts.tokenizer));
  sendJson(res, 200, parsed.batch ? bodies : bodies[0]);
}

async function streamGenerate(
  jobs: GenerateJob[],
  batch: boolean,
  cutFraction: number | undefined,
  signal: AbortSignal | undefined,
  res: ServerResponse,
  ctx: GenerateContext,
): Promise<void> {
  const { core, incrementalStreaming } = ctx;
  const tok = core.opts.tokenizer;
  res.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    connection: "keep-alive",
  });
  const write = (obj: unknown) => res.write(`data: ${JSON.stringify(obj)}\n\n`);
  await Promise.all(
    jobs.map(async (job, index) => {
      let sent = 0;
      const result: JobResult = await core.run(job, {
        cutFraction,
        signal,
        onProgress: (count, plan) => {
          const chunk = buildChunk(
            job,
            plan,
            count,
            incrementalStreaming ? sent : 0,
            core.weightVersion,
            tok,
          );
          sent = count;
          if (batch) chunk.index = index;
          write(chunk);
        },
      });
      const final = buildResponse(job, result, tok);
      if (incrementalStreaming && sent > 0) toDelta(final, job, result, sent, tok);
      if (batch) final.index = index;
      write(final);
    }),
  );
  res.end("data: [DONE]\n\n");
}

/** Rewrites a cumulative final chunk into the delta after `from` tokens (incremental mode). */
function toDelta(
  final: Record<string, unknown>,
  job: GenerateJob,
  result: JobResult,
  from: number,
  tok: EngineCore["opts"]["tokenizer"],
): void {
  final.output_ids = result.ids.slice(from);
  final.text = tok.decode(result.ids.slice(from), { skipSpecialTokens: job.sampling.skipSpecialTokens });
  const meta = final.meta_info as Record<string, unknown>;
  if (Array.isArray(meta.output_token_logprobs))
    meta.output_token_logprobs = meta.output_token_logprobs.slice(from);
}
