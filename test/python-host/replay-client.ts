/** A Client that answers every model call of a rollout with the next of a fixed list of replies. */
import type { Client, ModelRequest, ModelResponse } from "../../packages/core/src/clients/client.ts";
import type { Message } from "../../packages/core/src/types.ts";

export class ReplayClient implements Client {
  readonly kind = "eval" as const;
  readonly requests: Message[][] = [];
  private n = 0;
  constructor(private readonly replies: readonly string[]) {}

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request.messages);
    const content = this.replies[Math.min(this.n, this.replies.length - 1)] ?? "";
    this.n++;
    return {
      id: `replay-${this.n}`,
      model: "replay",
      message: { role: "assistant", content },
      finishReason: "stop",
      usage: { promptTokens: 1, completionTokens: 1 },
      tokens: null,
    };
  }
  async abort(): Promise<void> {}
  async close(): Promise<void> {}
}

/**
 * Gives each rollout of a group its own reply: the k-th rollout to call gets `replies[k]`. Which
 * rollout that is depends on scheduling, so tests match a trace to its reply by the reply itself.
 */
export class GroupReplayClient implements Client {
  readonly kind = "eval" as const;
  private readonly bySession = new Map<string, number>();
  constructor(private readonly replies: readonly string[]) {}

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    let k = this.bySession.get(request.sessionId);
    if (k === undefined) {
      k = this.bySession.size;
      this.bySession.set(request.sessionId, k);
    }
    return {
      id: `group-replay-${k}`,
      model: "replay",
      message: { role: "assistant", content: this.replies[k] ?? "" },
      finishReason: "stop",
      usage: { promptTokens: 1, completionTokens: 1 },
      tokens: null,
    };
  }
  async abort(): Promise<void> {}
  async close(): Promise<void> {}
}
