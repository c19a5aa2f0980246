/**
 * The built-in engine: a protocol-faithful stand-in for SGLang's native HTTP API (not a model).
 * `startEngine` runs one worker, or K workers behind a consistent-hash router, in this process.
 */

import { isLoopback } from "envroll/internal/http/index.ts";
import { type CoreStats, EngineCore } from "./core.ts";
import { emptyFaultCounts, FaultInjector } from "./faults.ts";
import { policyName, resolvePolicy } from "./policies/index.ts";
import { startRouter } from "./router.ts";
import { servedModel } from "./served-model.ts";
import { type RunningServer, startWorker } from "./server.ts";
import type { EngineHandle, EngineOptions, EngineStats } from "./types.ts";

export { FAULT_KINDS, parseFaultKinds } from "./faults.ts";
export { FORMAT_FAMILIES } from "./formats/index.ts";
export {
  chatMessages,
  formatReferenceTurn,
  parseChatPrompt,
  referencePolicy,
  resolvePolicy,
} from "./policies/index.ts";
export { type RecordedPolicy, type RecordedReply, recordedPolicy } from "./policies/recorded.ts";
export { type ServedModel, servedModel, unreadableFormat } from "./served-model.ts";
export type {
  ChatMessage,
  EngineHandle,
  EngineOptions,
  EngineStats,
  EngineTokenizer,
  FaultKind,
  FaultOptions,
  PolicyContext,
  PolicyFn,
  PolicyReply,
  PromptMessage,
  ReferenceSource,
  ReferenceTurn,
} from "./types.ts";

const DEFAULT_CONTEXT = 40_960;

export async function startEngine(opts: EngineOptions = {}): Promise<EngineHandle> {
  const host = opts.host ?? "127.0.0.1";
  if (!isLoopback(host) && !opts.token) {
    throw new Error(`binding ${host} exposes the engine beyond this machine: pass a token (--token)`);
  }
  const model = servedModel(opts.model);
  const policy = resolvePolicy(opts.policy, opts.reference);
  const seed = opts.seed ?? 0;
  // A served folder is reported as SGLang reports --model-path, so a client can take it as is.
  const modelName = opts.modelName ?? (opts.model ? model.path : `envroll-engine/${policyName(opts.policy)}`);
  const faults = opts.faults && opts.faults.rate > 0 ? new FaultInjector({ seed, ...opts.faults }) : null;
  const workerCount = Math.max(0, opts.workers ?? 0);
  const bodyLimit = opts.bodyLimit ?? 64 * 1024 * 1024;
  const stallMs = opts.stallMs ?? 600_000;

  const cores = Array.from(
    { length: Math.max(1, workerCount) },
    (_, i) =>
      new EngineCore({
        model,
        tokenizer: model.tokenizer,
        policy,
        seed: seed + i,
        contextLength: opts.contextLength ?? DEFAULT_CONTEXT,
        latencyMs: opts.latencyMs ?? 0,
        tokenLatencyMs: opts.tokenLatencyMs ?? 0,
        returnOriginalLogprob: opts.returnOriginalLogprob ?? false,
        weightVersion: opts.weightVersion ?? "default",
      }),
  );

  let perWorker: number[] | null = null;
  let workerUrls: string[] = [];
  const stats = (): EngineStats => {
    const merged: EngineStats = {
      ...cores.map((c) => c.stats()).reduce(mergeStats),
      faults: faults ? { ...faults.counts } : emptyFaultCounts(),
    };
    if (perWorker) merged.workers = workerUrls.map((url, i) => ({ url, requests: perWorker?.[i] ?? 0 }));
    return merged;
  };
  const extraGet = { "/engine_stats": stats };
  const workerConfig = {
    token: opts.token,
    bodyLimit,
    stallMs,
    incrementalStreaming: opts.incrementalStreaming ?? false,
    modelName,
    maxRunningRequests: opts.maxRunningRequests ?? Number.POSITIVE_INFINITY,
  };

  if (workerCount === 0) {
    const server = await startWorker(cores[0]!, {
      ...workerConfig,
      host,
      port: opts.port ?? 0,
      faults,
      trustFaultHeader: false,
      onRequest: opts.onRequest,
      extraGet,
    });
    return handle(server, [server.url], stats, [server]);
  }

  // Workers listen on loopback only; the router is the one public face.
  const workers = await Promise.all(
    cores.map((core) =>
      startWorker(core, {
        ...workerConfig,
        host: "127.0.0.1",
        port: 0,
        faults: null,
        trustFaultHeader: true,
        onRequest: undefined,
      }),
    ),
  );
  workerUrls = workers.map((w) => w.url);
  const router = await startRouter({
    host,
    port: opts.port ?? 0,
    token: opts.token,
    bodyLimit,
    policy: opts.routerPolicy ?? "consistent_hashing",
    workerUrls,
    faults,
    stallMs,
    onRequest: opts.onRequest,
    extraGet,
  });
  perWorker = router.perWorker;
  return handle(router, workerUrls, stats, [router, ...workers]);
}

function handle(
  front: RunningServer,
  workerUrls: string[],
  stats: () => EngineStats,
  servers: RunningServer[],
): EngineHandle {
  let closed: Promise<void> | null = null;
  return {
    url: front.url,
    port: front.port,
    workerUrls,
    stats,
    close: () => {
      closed ??= Promise.all(servers.map((s) => s.close())).then(() => {});
      return closed;
    },
  };
}

function mergeStats(a: CoreStats, b: CoreStats): CoreStats {
  return {
    requests: a.requests + b.requests,
    chatCompletions: a.chatCompletions + b.chatCompletions,
    generated: a.generated + b.generated,
    completionTokens: a.completionTokens + b.completionTokens,
    aborted: a.aborted + b.aborted,
    errors400: a.errors400 + b.errors400,
    inFlight: a.inFlight + b.inFlight,
    weightVersion: a.weightVersion,
  };
}
