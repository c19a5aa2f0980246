/**
 * The engine's model-free "scheduler": runs one job from prompt ids to a finished (or aborted)
 * completion, keeping the server state a real SGLang worker exposes — weight version, in-flight
 * rids for abort, a prefix cache for `cached_tokens`, counters.
 */

import { hashIds, hashString, mulberry32 } from "envroll/internal/random.ts";
import { type FinishReason, type PlannedCompletion, planCompletion } from "./completion.ts";
import { emitOverTime } from "./emission.ts";
import { InFlightTable } from "./inflight.ts";
import { PauseGate } from "./pause.ts";
import { lastMessage, lastMessageFromIds } from "./policies/chat-prompt.ts";
import { PrefixCache } from "./prefix-cache.ts";
import type { GenerateJob } from "./request.ts";
import { BadRequest } from "./sampling.ts";
import type { ServedModel } from "./served-model.ts";
import type {
  ChatMessage,
  EngineStats,
  EngineTokenizer,
  PolicyContext,
  PolicyFn,
  PolicyReply,
  PromptMessage,
} from "./types.ts";

/** One worker's counters; faults and per-worker routing are the front server's business. */
export type CoreStats = Omit<EngineStats, "faults" | "workers">;

export interface CoreOptions {
  model: ServedModel;
  tokenizer: EngineTokenizer;
  policy: PolicyFn;
  seed: number;
  contextLength: number;
  latencyMs: number;
  tokenLatencyMs: number;
  returnOriginalLogprob: boolean;
  weightVersion: string;
}

/** A finished job: the tokens that were actually emitted (all of them unless aborted). */
export interface JobResult {
  ids: number[];
  logprobs: number[];
  finish: FinishReason;
  promptTokens: number;
  cachedTokens: number;
  weightVersion: string;
  e2eLatency: number;
}

/** Called as tokens become visible (streaming); `count` grows monotonically. */
export type ProgressFn = (count: number, plan: PlannedCompletion) => void;

export interface RunOptions {
  onProgress?: ProgressFn;
  /** Stop after this fraction of the planned tokens and finish `abort` (the injected abort fault). */
  cutFraction?: number;
  /** The client went away: abort like SGLang does on disconnect. */
  signal?: AbortSignal;
}

export class EngineCore {
  readonly inflight = new InFlightTable();
  readonly cache = new PrefixCache();
  readonly gate = new PauseGate();
  weightVersion: string;
  readonly counters = {
    requests: 0,
    chatCompletions: 0,
    generated: 0,
    completionTokens: 0,
    aborted: 0,
    errors400: 0,
  };

  constructor(readonly opts: CoreOptions) {
    this.weightVersion = opts.weightVersion;
  }

  /** SGLang keeps one state per rid and refuses a request whose rid is still running. */
  checkRid(job: GenerateJob): void {
    if (this.inflight.has(job.rid)) throw new BadRequest(`Duplicate request ID detected: ${job.rid}`);
  }

  /** Validates limits that need the engine's context length; throws BadRequest like SGLang. */
  checkContext(job: GenerateJob): void {
    const n = job.promptIds.length;
    const ctx = this.opts.contextLength;
    if (n >= ctx) {
      throw new BadRequest(
        `The input (${n} tokens) is longer than the model's context length (${ctx} tokens).`,
      );
    }
    if (n + job.sampling.maxNewTokens > ctx) {
      throw new BadRequest(
        `Requested token count exceeds the model's maximum context length of ${ctx} tokens. You requested a total of ${
          n + job.sampling.maxNewTokens
        } tokens: ${n} tokens from the input messages and ${job.sampling.maxNewTokens} tokens for the completion.`,
      );
    }
  }

  /** Decides the whole completion up front; emission over time is `run`'s business. */
  plan(job: GenerateJob): PlannedCompletion {
    const { tokenizer, policy, seed, model } = this.opts;
    const format = model.format;
    const base = hashIds(
      job.promptIds,
      hashString(
        job.sampling.samplingSeed !== null ? `seed:${job.sampling.samplingSeed}` : `rid:${job.rid}`,
        seed >>> 0,
      ),
    );
    let promptText: string | undefined;
    let last: PromptMessage | null | undefined;
    let messages: ChatMessage[] | undefined;
    let tools: string[] | undefined;
    const ctx: PolicyContext = {
      promptIds: job.promptIds,
      get promptText() {
        promptText ??= tokenizer.decode(job.promptIds);
        return promptText;
      },
      get lastMessage() {
        if (last === undefined)
          last =
            promptText !== undefined
              ? lastMessage(promptText, format)
              : lastMessageFromIds(job.promptIds, tokenizer, format);
        return last;
      },
      get messages() {
        messages ??= format ? format.messages(this.promptText) : [];
        return messages;
      },
      get tools() {
        tools ??= format?.tools ? format.tools(this.promptText) : [];
        return tools;
      },
      family: model.format ? model.family : null,
      sampling: job.sampling,
      rid: job.rid,
      rng: mulberry32(base),
    };
    const reply = policy(ctx);
    const planned = planCompletion(
      replyIds(reply, model),
      job.sampling,
      model,
      mulberry32(base ^ 0x9e3779b9),
      this.opts.returnOriginalLogprob,
    );
    if (typeof reply === "object" && "logprobs" in reply && reply.logprobs) {
      // Only where the plan emitted the given ids as given (a shorter budget cuts, never shifts).
      const n = Math.min(planned.ids.length, reply.logprobs.length);
      for (let i = 0; i < n && planned.ids[i] === reply.ids[i]; i++) planned.logprobs[i] = reply.logprobs[i]!;
    }
    return planned;
  }

  /**
   * Runs a job to completion. With latency configured, tokens appear over time and an abort
   * (by /abort_request, a weight update, a fault, or the client leaving) returns the tokens so far.
   */
  async run(job: GenerateJob, opts: RunOptions = {}): Promise<JobResult> {
    const { onProgress, signal } = opts;
    const started = performance.now();
    const cachedTokens = this.cache.lookup(job.promptIds);
    const plan = this.plan(job);
    const entry = this.inflight.add(job.rid);
    const cut =
      opts.cutFraction === undefined ? plan.ids.length : Math.floor(plan.ids.length * opts.cutFraction);
    if (cut < plan.ids.length) entry.abortMessage = "Abort requested (injected fault)";
    const onSignal = () => {
      entry.aborted = true;
      entry.abortMessage = "Client disconnected";
      entry.wake();
    };
    signal?.addEventListener("abort", onSignal, { once: true });
    let emitted = cut;
    try {
      const { latencyMs, tokenLatencyMs } = this.opts;
      if (latencyMs > 0 || tokenLatencyMs > 0 || onProgress || this.gate.paused) {
        const timing = { latencyMs, tokenLatencyMs, interval: Math.max(1, job.sampling.streamInterval ?? 1) };
        emitted = await emitOverTime(
          cut,
          entry,
          timing,
          this.gate,
          onProgress && ((n) => onProgress(n, plan)),
        );
      }
      const aborted = entry.aborted || emitted < plan.ids.length;
      const finish: FinishReason = aborted
        ? {
            type: "abort",
            message: entry.abortMessage || "Abort in waiting queue",
            status_code: null,
            err_type: null,
          }
        : plan.finish;
      const ids = aborted ? plan.ids.slice(0, emitted) : plan.ids;
      const logprobs = aborted ? plan.logprobs.slice(0, emitted) : plan.logprobs;
      this.counters.generated++;
      this.counters.completionTokens += ids.length;
      if (aborted) this.counters.aborted++;
      this.cache.insert(ids.length ? job.promptIds.concat(ids) : job.promptIds);
      return {
        ids,
        logprobs,
        finish,
        promptTokens: job.promptIds.length,
        cachedTokens,
        weightVersion: this.weightVersion,
        e2eLatency: (performance.now() - started) / 1000,
      };
    } finally {
      signal?.removeEventListener("abort", onSignal);
      this.inflight.delete(entry);
    }
  }

  /** Aborts a live rid (or all), as `/abort_request` does; returns how many requests were stopped. */
  abort(rid: string, all: boolean, message = "Abort requested by /abort_request"): number {
    return this.inflight.abort(rid, all, message);
  }

  /** `/pause_generation`: `abort` also aborts everything in flight; all modes hold progress. */
  pause(mode: "abort" | "retract" | "in_place"): void {
    this.gate.pause();
    if (mode === "abort") this.abort("", true, "Abort for pause_generation");
    // Running requests re-check the gate at once instead of at their next token boundary.
    else this.inflight.wakeAll();
  }

  resume(): void {
    this.gate.resume();
  }

  stats(): CoreStats {
    return { ...this.counters, inFlight: this.inflight.size, weightVersion: this.weightVersion };
  }
}

function replyIds(reply: PolicyReply, model: ServedModel): number[] {
  if (typeof reply === "string") return model.replyIds({ content: reply, tool_calls: [] });
  if ("ids" in reply) return reply.ids;
  if ("turn" in reply) return model.replyIds(reply.turn);
  return model.replyIds({ content: reply.text, tool_calls: [] });
}
