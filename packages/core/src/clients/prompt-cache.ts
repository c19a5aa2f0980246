/**
 * First-turn prompts by their exact render inputs. A group's n rollouts open with one
 * conversation (the task's system and user messages), so the client renders it once per group
 * instead of n times. Only conversations of system and user messages are kept — a first turn;
 * later turns bridge, or differ per rollout — keyed by the render fingerprint and the messages'
 * whole JSON, not by message-identity hashes, since a template may render fields identity
 * leaves out (a message `name`). What is shared is immutable: the ids are a TokenSequence,
 * whose extensions by each rollout fork their own buffer (token-sequence.ts), and the
 * attribution arrays are only read.
 */
import { LRUCache } from "lru-cache";
import type { Message } from "../types.ts";
import type { TurnTokens } from "./client.ts";

export class PromptCache {
  private readonly lru: LRUCache<string, TurnTokens>;

  constructor(capacity: number) {
    this.lru = new LRUCache({ max: capacity });
  }

  /** The cache key of a system/user-only conversation, else null (not cached). */
  key(messages: readonly Message[], fingerprint: string): string | null {
    for (const m of messages) if (m.role !== "system" && m.role !== "user") return null;
    return `${fingerprint}\n${JSON.stringify(messages)}`;
  }

  get(key: string): TurnTokens | undefined {
    return this.lru.get(key);
  }

  set(key: string, tokens: TurnTokens): void {
    this.lru.set(key, tokens);
  }
}
