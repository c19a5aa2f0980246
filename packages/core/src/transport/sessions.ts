/**
 * Bounded per-session memory.
 *
 * A trainer runs millions of rollouts through one transport; anything kept per session must be
 * evicted or the process grows without limit (agent-lightning #438 is that bug). An LRU keyed by
 * session id holds only what the next turn needs: the turn counter for the default rid.
 * An evicted session simply starts over: its next request is checked as a first request again.
 */
import { LRUCache } from "lru-cache";

interface SessionState {
  /** Turns started so far; the next default rid uses this number. */
  turns: number;
}

export class SessionTable {
  private readonly lru: LRUCache<string, SessionState>;

  constructor(capacity = 10_000) {
    this.lru = new LRUCache({ max: Math.max(1, capacity) });
  }

  /** Registers a turn; returns its number and whether this is the session's first request. */
  nextTurn(sessionId: string): { turn: number; first: boolean } {
    const state = this.lru.get(sessionId);
    if (state) return { turn: state.turns++, first: false };
    this.lru.set(sessionId, { turns: 1 });
    return { turn: 0, first: true };
  }

  /** True when the session has no remembered state (first request, or evicted). */
  isNew(sessionId: string): boolean {
    return !this.lru.has(sessionId);
  }

  forget(sessionId: string): void {
    this.lru.delete(sessionId);
  }

  get size(): number {
    return this.lru.size;
  }

  get capacity(): number {
    return this.lru.max;
  }
}
