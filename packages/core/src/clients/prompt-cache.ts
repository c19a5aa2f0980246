/**
 * First-turn prompts by their exact render inputs. A group's n rollouts open with one
 * conversation (the task's system and user messages), so the client renders it once per group
 * instead of n times. Only conversations of system and user messages are kept — a first turn;
 * later turns bridge, or differ per rollout — matched on the render fingerprint and the
 * messages' whole JSON, not on message-identity hashes, since a template may render fields
 * identity leaves out (a message `name`). What is shared is immutable: the ids are a
 * TokenSequence, whose extensions by each rollout fork their own buffer (token-sequence.ts), and
 * the attribution arrays are only read.
 *
 * Every first turn of every rollout asks, and most ask once per group, so a lookup builds no key
 * string: entries are found by the last message's content (a string the caller already holds)
 * and then compared with a snapshot of the messages taken at `set`, field by field for the usual
 * `{role, content}` message and by its JSON otherwise. A comparison that cannot prove equality
 * misses, which only costs a render.
 */
import type { Message } from "../types.ts";
import type { TurnTokens } from "./client.ts";

/** A message as stored: `[role, content]` for a plain two-string message, else its JSON. */
type Snapshot = readonly [role: string, content: string] | string;

interface Entry {
  fingerprint: string;
  messages: Snapshot[];
  tokens: TurnTokens;
}

export class PromptCache {
  /** By the last message's content (or the conversation's JSON); insertion order is recency. */
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly capacity: number) {}

  get(messages: readonly Message[], fingerprint: string): TurnTokens | undefined {
    const key = bucketKey(messages);
    if (key === null) return undefined;
    const entry = this.entries.get(key);
    if (entry === undefined || entry.fingerprint !== fingerprint || !matches(entry.messages, messages))
      return undefined;
    // Most recently used last.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.tokens;
  }

  set(messages: readonly Message[], fingerprint: string, tokens: TurnTokens): void {
    const key = bucketKey(messages);
    if (key === null) return;
    this.entries.delete(key);
    this.entries.set(key, { fingerprint, messages: messages.map(snapshot), tokens });
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }
}

/** Where a cacheable conversation is filed; null for one holding other roles (not a first turn). */
function bucketKey(messages: readonly Message[]): string | null {
  if (messages.length === 0) return null;
  for (const m of messages) if (m.role !== "system" && m.role !== "user") return null;
  const content = messages[messages.length - 1]!.content;
  return typeof content === "string" ? content : JSON.stringify(messages);
}

/**
 * A plain object with exactly two fields, `role` then `content`, both strings: two such
 * messages have equal JSON exactly when their roles and contents are equal.
 */
function isPlainPair(m: Message): boolean {
  if (typeof m.role !== "string" || typeof m.content !== "string") return false;
  if (Object.getPrototypeOf(m) !== Object.prototype) return false;
  let k = 0;
  for (const key in m) {
    if (!Object.hasOwn(m, key) || key !== (k === 0 ? "role" : k === 1 ? "content" : "")) return false;
    k++;
  }
  return k === 2;
}

function snapshot(m: Message): Snapshot {
  return isPlainPair(m) ? [m.role, m.content as string] : JSON.stringify(m);
}

function matches(stored: readonly Snapshot[], messages: readonly Message[]): boolean {
  if (stored.length !== messages.length) return false;
  for (let i = 0; i < stored.length; i++) {
    const s = stored[i]!;
    const m = messages[i]!;
    if (typeof s === "string") {
      if (s !== JSON.stringify(m)) return false;
    } else if (s[0] !== m.role || s[1] !== m.content || !isPlainPair(m)) return false;
  }
  return true;
}
