/**
 * A Client wrapper that scopes `abort()` to the sessions of one service request.
 *
 * `Client.abort()` without a session aborts *everything* on the engine (SGLang `abort_all`),
 * which would also kill a concurrent eval request or another trainer's rollouts. The service
 * only ever wants to stop its own request, so this wrapper remembers the sessions (trace ids) it
 * has in flight and aborts exactly those.
 */
import { type Client, estimateTokens, type ModelRequest, type ModelResponse } from "../clients/client.ts";
import type { Message, Tool } from "../types.ts";

export class ScopedClient implements Client {
  private readonly inFlight = new Map<string, number>();

  /** `padTokenId`: see RequestClient (the renderer's end-of-turn token). */
  constructor(
    private readonly inner: Client,
    readonly padTokenId?: number,
  ) {}

  get kind(): "train" | "eval" {
    return this.inner.kind;
  }

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    const id = request.sessionId;
    this.inFlight.set(id, (this.inFlight.get(id) ?? 0) + 1);
    try {
      return await this.inner.getResponse(request);
    } finally {
      const left = (this.inFlight.get(id) ?? 1) - 1;
      if (left > 0) this.inFlight.set(id, left);
      else this.inFlight.delete(id);
    }
  }

  countTokens(messages: Message[], tools: Tool[]): Promise<number> {
    return this.inner.countTokens
      ? this.inner.countTokens(messages, tools)
      : Promise.resolve(estimateTokens(messages, tools));
  }

  /** Aborts one session, or every session this request has in flight (never the whole engine). */
  async abort(sessionId?: string): Promise<void> {
    const ids = sessionId === undefined ? [...this.inFlight.keys()] : [sessionId];
    await Promise.all(ids.map((id) => this.inner.abort(id)));
  }

  endSession(sessionId: string): void {
    this.inner.endSession?.(sessionId);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
