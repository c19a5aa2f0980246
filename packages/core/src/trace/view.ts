import type { Message } from "../types.ts";

/** What handlers can read of a rollout. The trace implementation provides it. */
export interface TraceView {
  readonly id: string;
  /** Content of the last sampled assistant message, trimmed, reasoning excluded ("" if none). */
  readonly lastReply: string;
  /** Number of sampled (model) turns. */
  readonly numTurns: number;
  /** The conversation of the main branch as messages. */
  readonly messages: readonly Message[];
  readonly metrics: Readonly<Record<string, number>>;
  /** Weighted reward contributions. */
  readonly rewards: Readonly<Record<string, number>>;
  readonly reward: number;
  readonly stopCondition: string | null;
  readonly errors: readonly { type: string; message: string }[];
  readonly isTruncated: boolean;
  /** Per-rollout scratch space (not written to dumps). */
  readonly state: Record<string, unknown>;
  /** JSON scratch written to dumps (judge responses, diagnostics). */
  readonly info: Record<string, unknown>;
}
