/**
 * The two ports the rollout service needs from the rest of envroll, kept narrow so the service
 * can be tested over real HTTP with a fake environment and so the real wiring
 * (`environment-backend.ts`) is the only file that knows the environment runtime's API.
 */
import type { Client, Sampling } from "../clients/client.ts";
import type { TraceRecord } from "../trace/record.ts";

export interface EnvironmentInfo {
  tasksetId: string;
  /** Train tasks (the cursor walks these). */
  numTasks: number;
  /** Eval tasks: every one runs n times per eval request. */
  numEvalTasks: number;
  /** The taskset has group rewards: groups need n ≥ 2 to be meaningful. */
  requiresGroupScoring: boolean;
  /** Rollouts per group the environment accepts at least (loaders/checks.ts's rule); Miles reads it. */
  minGroupSize: number;
}

export interface GroupRun {
  split: "train" | "eval";
  taskIndex: number;
  n: number;
  client: Client;
  sampling: Sampling;
  /** Per-rollout sampling seeds (length n) for deterministic inference; null = unseeded. */
  seeds: number[] | null;
  /** Upper bound on rollouts in flight for this request (Miles: server concurrency × engines). */
  concurrency: number;
  /** Aborts every rollout of the group (and their engine requests). */
  signal: AbortSignal;
}

export interface RolloutEnvironment {
  readonly info: EnvironmentInfo;
  /**
   * Runs one task's group of n rollouts and resolves with their n traces. Failures inside a
   * rollout are recorded on its trace; only a group-reward failure rejects (it fails the group).
   * After `signal` aborts it may resolve or reject; the service discards the result either way.
   */
  runGroup(run: GroupRun): Promise<TraceRecord[]>;
  close(): Promise<void>;
}

/** Where a request's model calls go (the SGLang router or engine Miles runs). */
export interface EngineSpec {
  url: string;
  /** Renderer identity; undefined = the environment config's model. */
  model?: string;
  tokenizerPath?: string;
  routingPolicy?: string;
  lora?: string | null;
  maxContextLen?: number;
  maxPromptLen?: number;
  maxResponseLen?: number;
  skipSpecialTokens: boolean;
  stopTokenIds: number[];
  connections: number;
  /** `--apply-chat-template-kwargs`, every key; the renderer refuses (naming it) a key it does not know. */
  chatTemplateKwargs: Record<string, unknown>;
}

/** A request's client; `padTokenId` fills the one masked token of a sample that sampled nothing. */
export type RequestClient = Client & { readonly padTokenId?: number };

/**
 * Builds one Client per request, so aborting a request (`client.abort()`) reaches exactly that
 * request's engine calls and `close()` frees its connections.
 */
export type ClientFactory = (engine: EngineSpec) => RequestClient | Promise<RequestClient>;
