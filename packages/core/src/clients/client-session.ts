/**
 * The TrainClient's per-rollout state: what a bridge needs, kept by the side that renders.
 *
 * A bridge reuses a sampled turn's exact prompt+completion ids and appends only the new
 * messages, so it is valid only when (a) the new prompt extends that turn's messages and reply by
 * message identity, with tool/user messages only, and (b) every other render input — tools,
 * enable_thinking, chat-template kwargs, the system prompt — is what that turn was rendered
 * with. (b) is a fingerprint; on any difference the client renders in full, since the carried
 * ids would otherwise silently lack e.g. a tool added this turn.
 *
 * A few recent turns are kept (not just the last) so that a program interleaving independent
 * conversations in one rollout still bridges each of them.
 */
import { LRUCache } from "lru-cache";
import type { TokenSequence } from "../token-sequence.ts";
import { canonicalJson, ListJson, messageHash } from "../trace/hash.ts";
import type { Message, Tool } from "../types.ts";

/** The render inputs besides the messages, as they shape the prompt. */
export interface RenderInputs {
  tools: readonly Tool[];
  enableThinking: boolean | undefined;
  chatTemplateKwargs: unknown;
  systemPrompt: Message | undefined;
  /** `messageHash(systemPrompt)` when the caller has it already (it hashes every message). */
  systemPromptHash?: string;
  /** `canonicalJson(tools)` when the caller keeps it (a session's ListJson). */
  toolsJson?: string;
}

export interface SampledTurn {
  /** messageHash of every prompt message, then of the reply. */
  path: string[];
  promptIds: TokenSequence;
  completionIds: number[];
  fingerprint: string;
}

export type BridgePlan =
  | { kind: "bridge"; from: SampledTurn; newMessages: Message[] }
  /** `inputsChanged`: a turn's messages were extended, but a render input differs from that turn's. */
  | { kind: "render"; inputsChanged: boolean };

/** `canonicalJson([tools, enableThinking, kwargs, system hash])`, with the tools' part as given. */
export function renderFingerprint(inputs: RenderInputs): string {
  const rest = canonicalJson([
    inputs.enableThinking ?? null,
    inputs.chatTemplateKwargs ?? null,
    inputs.systemPrompt ? (inputs.systemPromptHash ?? messageHash(inputs.systemPrompt)) : null,
  ]);
  return `[${inputs.toolsJson ?? canonicalJson(inputs.tools)},${rest.slice(1)}`;
}

const BRIDGEABLE = new Set(["tool", "user"]);

export class ClientSession {
  private readonly turns: SampledTurn[] = [];
  private toolCalls = 0;
  /** The request tools' canonical JSON, written once while a program resends the same tools. */
  readonly toolsJson = new ListJson();

  constructor(private readonly keep: number) {}

  plan(messages: readonly Message[], hashes: readonly string[], fingerprint: string): BridgePlan {
    let inputsChanged = false;
    for (let t = this.turns.length - 1; t >= 0; t--) {
      const turn = this.turns[t]!;
      if (!isProperPrefix(turn.path, hashes)) continue;
      const newMessages = messages.slice(turn.path.length);
      if (!newMessages.every((m) => BRIDGEABLE.has(m.role))) continue;
      if (turn.fingerprint !== fingerprint) {
        inputsChanged = true;
        continue;
      }
      return { kind: "bridge", from: turn, newMessages };
    }
    return { kind: "render", inputsChanged };
  }

  record(turn: SampledTurn): void {
    this.turns.push(turn);
    if (this.turns.length > this.keep) this.turns.shift();
  }

  /** Tool-call ids unique within the rollout (a program keys its results by them). */
  nextToolCallId(): string {
    return `call_${this.toolCalls++}`;
  }
}

/** True when `path` is a proper prefix of `hashes`. */
function isProperPrefix(path: readonly string[], hashes: readonly string[]): boolean {
  if (path.length >= hashes.length) return false;
  for (let i = 0; i < path.length; i++) if (path[i] !== hashes[i]) return false;
  return true;
}

/**
 * Sessions by id. Rollouts release theirs when they end (`Client.endSession`); the LRU bound is
 * only the backstop for callers that never do, so a long run cannot grow without limit.
 */
export class ClientSessions {
  private readonly lru: LRUCache<string, ClientSession>;

  constructor(
    capacity: number,
    private readonly keepTurns: number,
  ) {
    this.lru = new LRUCache({ max: Math.max(1, capacity) });
  }

  get(sessionId: string): ClientSession {
    let s = this.lru.get(sessionId);
    if (!s) {
      s = new ClientSession(this.keepTurns);
      this.lru.set(sessionId, s);
    }
    return s;
  }

  end(sessionId: string): void {
    this.lru.delete(sessionId);
  }

  get size(): number {
    return this.lru.size;
  }
}
