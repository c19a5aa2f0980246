/**
 * The message graph of one rollout (Verifiers `graph.py`). Every message the model saw or
 * produced is a node; a node's `tokenIds` are only the *delta* it adds to its parent, so a
 * 50-turn agent trace stays linear in size instead of storing 50 growing prompts.
 *
 * A turn is two steps: `prepareTurn` finds the reused prefix by message identity; `commit`
 * narrows that prefix to token identity when the response carries token ids, forking at the
 * first node whose stored tokens are not what the engine was actually given — training on
 * tokens the model never saw would be silently wrong, a fork is merely a new branch.
 * The graph only records: how a prompt is built (bridge or full render) is the client's
 * business, which alone knows every input the prompt depends on.
 */
import type { ModelResponse, TokenBudget } from "../clients/client.ts";
import type { FinishReason, Message } from "../types.ts";
import { messageHash } from "./hash.ts";

export interface GraphNode {
  parent: number | null;
  message: Message;
  hash: string;
  sampled: boolean;
  timestamp: number;
  tokenIds?: number[];
  mask?: boolean[];
  isContent?: boolean[];
  logprobs?: number[];
  finishReason?: FinishReason;
  /** On a sampled node: why its prompt was not bridged from the previous turn (a full render). */
  bridgeDeclined?: string;
  weightVersion?: string | null;
  tokenBudget?: TokenBudget;
}

export interface TurnPlan {
  messages: readonly Message[];
  hashes: string[];
  /** Nodes matched by message identity, one per leading prompt message. */
  prefix: number[];
}

const ROOT = -1;
const edgeKey = (parent: number | null, hash: string) => `${parent ?? ROOT}:${hash}`;

function matchesAt(ids: readonly number[], offset: number, part: readonly number[]): boolean {
  if (offset + part.length > ids.length) return false;
  for (let i = 0; i < part.length; i++) if (ids[offset + i] !== part[i]) return false;
  return true;
}

export class MessageGraph {
  readonly nodes: GraphNode[] = [];
  /** (parent, hash) → nodes; several after a token fork, newest last. */
  private readonly edges = new Map<string, number[]>();
  private readonly hasChild: boolean[] = [];
  /** The newest sampled node: the tip of the conversation handlers see. */
  lastSampled: number | null = null;

  prepareTurn(messages: readonly Message[]): TurnPlan {
    const hashes = messages.map(messageHash);
    const prefix: number[] = [];
    let parent: number | null = null;
    for (const h of hashes) {
      const found = this.edges.get(edgeKey(parent, h));
      if (!found) break;
      parent = found[found.length - 1]!;
      prefix.push(parent);
    }
    return { messages, hashes, prefix };
  }

  /** Records the turn; returns the index of the new sampled assistant node. */
  commit(plan: TurnPlan, response: ModelResponse, now = Date.now() / 1000): number {
    const tokens = response.tokens;
    let parent: number | null;
    let reused: number;
    let offset = 0;
    if (tokens) {
      // Narrow the identity prefix to token identity: walk again, accepting a node only when its
      // stored delta is exactly what the engine received at this offset.
      parent = null;
      reused = 0;
      for (; reused < plan.messages.length; reused++) {
        const found = this.edges.get(edgeKey(parent, plan.hashes[reused]!)) ?? [];
        let hit = -1;
        for (let c = found.length - 1; c >= 0 && hit < 0; c--) {
          const ids = this.nodes[found[c]!]!.tokenIds;
          if (ids && matchesAt(tokens.promptIds, offset, ids)) hit = found[c]!;
        }
        if (hit < 0) break;
        offset += this.nodes[hit]!.tokenIds!.length;
        parent = hit;
      }
    } else {
      reused = plan.prefix.length;
      parent = plan.prefix[reused - 1] ?? null;
    }

    const ends = tokens
      ? this.spanEnds(plan, reused, offset, tokens.promptIds.length, tokens.promptMessageIndices)
      : [];
    let start = offset;
    for (let j = reused; j < plan.messages.length; j++) {
      const node: GraphNode = {
        parent,
        message: plan.messages[j]!,
        hash: plan.hashes[j]!,
        sampled: false,
        timestamp: now,
      };
      if (tokens) {
        const end = ends[j - reused]!;
        node.tokenIds = tokens.promptIds.slice(start, end);
        node.mask = new Array(end - start).fill(false);
        node.logprobs = new Array(end - start).fill(0);
        if (tokens.promptIsContent) node.isContent = tokens.promptIsContent.slice(start, end);
        start = end;
      }
      parent = this.add(node);
    }

    const reply: GraphNode = {
      parent,
      message: response.message,
      hash: messageHash(response.message),
      sampled: true,
      timestamp: now,
      finishReason: response.finishReason,
    };
    if (response.weightVersion !== undefined) reply.weightVersion = response.weightVersion;
    if (tokens?.bridgeDeclined) reply.bridgeDeclined = tokens.bridgeDeclined;
    if (response.tokenBudget !== undefined) reply.tokenBudget = response.tokenBudget;
    if (tokens) {
      // The generation prompt (e.g. `<|im_start|>assistant\n`) is scaffold the model did not
      // sample, so it rides on the reply node with mask false.
      const gen = tokens.promptIds.slice(start);
      const n = tokens.completionIds.length;
      reply.tokenIds = gen.concat(tokens.completionIds);
      reply.mask = new Array<boolean>(gen.length).fill(false).concat(new Array<boolean>(n).fill(true));
      reply.logprobs = new Array<number>(gen.length).fill(0).concat(tokens.completionLogprobs);
      if (tokens.promptIsContent)
        reply.isContent = tokens.promptIsContent.slice(start).concat(new Array<boolean>(n).fill(true));
    }
    const idx = this.add(reply);
    this.lastSampled = idx;
    return idx;
  }

  /**
   * Where each new input message's token span ends. A message owns its renderer span plus the
   * scaffold before it; tokens after the last message's span are the generation prompt. Without
   * per-token attribution the whole new span goes to the first new message (the concatenation,
   * which is what training reads, is the same either way).
   */
  private spanEnds(
    plan: TurnPlan,
    reused: number,
    offset: number,
    promptLen: number,
    indices: number[] | undefined,
  ): number[] {
    const count = plan.messages.length - reused;
    if (count === 0) return [];
    if (!indices) return new Array(count).fill(promptLen);
    const last = new Map<number, number>();
    for (let pos = offset; pos < promptLen; pos++) {
      const mi = indices[pos]!;
      if (mi >= 0) last.set(Math.max(mi, reused), pos + 1);
    }
    const ends: number[] = [];
    let end = offset;
    for (let j = reused; j < plan.messages.length; j++) {
      end = Math.max(end, last.get(j) ?? end);
      ends.push(end);
    }
    return ends;
  }

  private add(node: GraphNode): number {
    const idx = this.nodes.length;
    this.nodes.push(node);
    this.hasChild.push(false);
    if (node.parent !== null) this.hasChild[node.parent] = true;
    const key = edgeKey(node.parent, node.hash);
    const list = this.edges.get(key);
    if (list) list.push(idx);
    else this.edges.set(key, [idx]);
    return idx;
  }

  /** Node indices from the root down to `leaf` (empty for null). */
  path(leaf: number | null): number[] {
    const out: number[] = [];
    for (let i = leaf; i !== null; i = this.nodes[i]!.parent) out.push(i);
    return out.reverse();
  }

  leaves(): number[] {
    const out: number[] = [];
    for (let i = 0; i < this.nodes.length; i++) if (!this.hasChild[i]) out.push(i);
    return out;
  }
}
