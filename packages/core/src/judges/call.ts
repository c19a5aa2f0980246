/**
 * One judge call: the request body (judge model, messages, the judge's sampling, per-call extras),
 * sent through the judge's EvalClient with the shared transport retry policy (connection
 * failures, timeouts, 408/429/5xx, with jittered backoff), then parsed. Every call is recorded —
 * request, raw response, verdict or error — whether it succeeded or not, so a failed judgement
 * can be read off the trace. A call that fails after its retries, or whose reply does not parse,
 * throws JudgeError: a judge outage is never a score.
 */
import type { Sampling } from "../clients/client.ts";
import type { EvalClient } from "../clients/eval.ts";
import { messageToWire } from "../clients/wire.ts";
import { errorMessage, JudgeError, RequestCancelledError } from "../errors.ts";
import { backoffDelayMs, type ResolvedRetry, resolveRetry, retryReason, sleep } from "../transport/retry.ts";
import { contentText, type Message } from "../types.ts";
import type { CompleteOptions, JudgeReply } from "./judge.ts";

/** What `trace.info.judge` holds, one entry per call, in judge order. */
export interface JudgeCallRecord {
  judge: string;
  request: Record<string, unknown>;
  /** The provider's JSON body; null when no reply came. */
  response: unknown;
  text: string | null;
  /** The verdict as parsed; null when the call or the parse failed. */
  parsed: unknown;
  attempts: number;
  error?: string;
}

export interface JudgeEndpoint {
  client: EvalClient;
  model: string;
  sampling: Sampling;
  retry: ResolvedRetry;
}

/**
 * As the OpenAI SDK Verifiers' judges use: 2 retries (3 attempts), from 0.5 s up to 8 s, and
 * timeouts retried too (a judge call is idempotent; nothing is lost by asking again).
 */
export const JUDGE_RETRY: ResolvedRetry = resolveRetry({
  maxAttempts: 3,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
  onTimeout: true,
});

export interface CallScope {
  judge: string;
  sessionId: string;
  sink: JudgeCallRecord[];
}

export async function callJudge<T>(
  endpoint: JudgeEndpoint,
  scope: CallScope,
  prompt: string | Message[],
  options: CompleteOptions<T> = {},
): Promise<JudgeReply<T>> {
  const messages =
    typeof prompt === "string" ? [{ role: "user", content: prompt }] : prompt.map(messageToWire);
  const sampling = Object.fromEntries(Object.entries(endpoint.sampling).filter(([, v]) => v != null));
  const request = { model: endpoint.model, messages, ...sampling, ...options.body };
  const record: JudgeCallRecord = {
    judge: scope.judge,
    request,
    response: null,
    text: null,
    parsed: null,
    attempts: 0,
  };
  scope.sink.push(record);
  const signal = options.signal;
  let text: string;
  for (;;) {
    record.attempts++;
    try {
      const { raw, response } = await endpoint.client.chat(request, scope.sessionId, signal);
      record.response = raw;
      text = contentText(response.message.content);
      record.text = text;
      break;
    } catch (e) {
      const retriable = record.attempts < endpoint.retry.maxAttempts && retryReason(e, endpoint.retry);
      if (!retriable || signal?.aborted) {
        record.error = errorMessage(e);
        if (e instanceof RequestCancelledError || signal?.aborted) throw e;
        throw new JudgeError(
          `judge ${scope.judge}: no verdict after ${record.attempts} attempt(s): ${record.error}`,
          { cause: e },
        );
      }
      await sleep(backoffDelayMs(record.attempts, endpoint.retry, e), signal);
    }
  }
  if (!options.parse) {
    record.parsed = text;
    return { text, parsed: text as T };
  }
  try {
    const parsed = options.parse(text);
    record.parsed = parsed;
    return { text, parsed };
  } catch (e) {
    record.error = errorMessage(e);
    throw new JudgeError(`judge ${scope.judge}: ${record.error}`, { cause: e });
  }
}
