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

import { doubleZeros, falses, zeros } from "../packed-arrays.ts";
import type { TokenSequence } from "../token-sequence.ts";
import type { FinishReason, Message } from "../types.ts";
import { messageDigest } from "./hash.ts";
import type { ModelResponse, TokenBudget, ToolCallFailure, TurnTokens } from "./turn.ts";

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
  /** Per-token versions of a turn a weight update split, in this node's token positions. */
  versionSpans?: { version: string; start: number; end: number }[];
  tokenBudget?: TokenBudget;
  /** On a sampled node: tool-call attempts that did not parse. */
  toolCallFailures?: ToolCallFailure[];
}

export interface TurnPlan {
  messages: readonly Message[];
  hashes: string[];
  /** Nodes matched by message identity, one per leading prompt message. */
  prefix: number[];
}

/**
 * A turn's prompt attribution, which covers the prompt from `attributionStart` on (before it,
 * a bridged prompt carries the sampled history: index −1, not content).
 */
class PromptAttribution {
  readonly start: number;
  constructor(private readonly tokens: TurnTokens) {
    this.start = tokens.attributionStart ?? 0;
  }
  /** Per prompt token from `start`: the message it belongs to (−1: scaffold). */
  get indices(): ArrayLike<number> {
    return this.tokens.promptMessageIndices!;
  }
  /**
   * promptIsContent over [from, to), then `sampled` trues (completion tokens are content), or
   * undefined when the client gave none.
   */
  isContent(from: number, to: number, sampled = 0): boolean[] | undefined {
    const flags = this.tokens.promptIsContent;
    if (!flags) return undefined;
    const out = falses(to - from + sampled);
    // Before `start` the prompt is carried history: not content (already false).
    let k = Math.min(Math.max(0, this.start - from), to - from);
    for (let pos = from + k; pos < to; pos++) out[k++] = flags[pos - this.start]!;
    while (k < out.length) out[k++] = true;
    return out;
  }
}

export class MessageGraph {
  readonly nodes: GraphNode[] = [];
  /** (parent, hash) → nodes; several after a token fork, newest last. */
  private readonly rootEdges = new Map<string, number[]>();
  /** Per node: its children by message hash (nested maps, so no key string is built per lookup). */
  private readonly childEdges: (Map<string, number[]> | undefined)[] = [];
  /** Per node: its newest child (−1: none); `newestRoot` likewise for the roots. */
  private readonly newestChild: number[] = [];
  private newestRoot = -1;
  /**
   * Per node: every token from the root through it, as a view of the prompt it came from, so a
   * later prompt extending that one is known to contain the path in O(1) (no per-turn compare
   * of the whole history); undefined for nodes without tokens.
   */
  private readonly pathIds: (TokenSequence | undefined)[] = [];
  /** The newest sampled node: the tip of the conversation handlers see. */
  lastSampled: number | null = null;

  prepareTurn(messages: readonly Message[]): TurnPlan {
    const hashes = new Array<string>(messages.length);
    const prefix: number[] = [];
    let parent: number | null = null;
    let matching = true;
    for (let i = 0; i < messages.length; i++) {
      const m = messages[i]!;
      // A message the graph already holds (a harness resends the same objects every turn) has
      // its hash on its node: only new messages are digested, so a turn costs what it adds.
      const edges: Map<string, number[]> | undefined = matching ? this.edgesOf(parent) : undefined;
      const h: string = (edges && this.knownHash(parent, edges, m)) ?? messageDigest(m);
      hashes[i] = h;
      const found: number[] | undefined = edges?.get(h);
      if (!found) {
        matching = false;
        continue;
      }
      parent = found[found.length - 1]!;
      prefix.push(parent);
    }
    return { messages, hashes, prefix };
  }

  /** Records the turn; returns the index of the new sampled assistant node. */
  commit(plan: TurnPlan, response: ModelResponse, now = Date.now() / 1000): number {
    const tokens = response.tokens;
    const prompt = tokens?.promptIds;
    const attribution = tokens ? new PromptAttribution(tokens) : undefined;
    let parent: number | null;
    let reused: number;
    let offset = 0;
    if (tokens) {
      // Narrow the identity prefix to token identity: walk again, accepting a node only when its
      // stored delta is exactly what the engine received at this offset.
      parent = null;
      reused = 0;
      // A prompt extending the tokens of the identity prefix's last node (one buffer: a bridged
      // turn) contains every node on that path: start there instead of comparing the history.
      const deepest = plan.prefix.at(-1);
      const known = deepest === undefined ? undefined : this.pathIds[deepest];
      if (deepest !== undefined && known !== undefined && prompt!.sharesPrefix(known)) {
        reused = plan.prefix.length;
        parent = deepest;
        offset = known.length;
      }
      for (; reused < plan.messages.length; reused++) {
        const found = this.edgesOf(parent)?.get(plan.hashes[reused]!) ?? [];
        let hit = -1;
        for (let c = found.length - 1; c >= 0 && hit < 0; c--) {
          const n = found[c]!;
          const ids = this.nodes[n]!.tokenIds;
          if (!ids) continue;
          const path = this.pathIds[n];
          const shared =
            path !== undefined && path.length === offset + ids.length && prompt!.sharesPrefix(path);
          if (shared || prompt!.matchesAt(offset, ids)) hit = n;
        }
        if (hit < 0) break;
        offset += this.nodes[hit]!.tokenIds!.length;
        parent = hit;
      }
    } else {
      reused = plan.prefix.length;
      parent = plan.prefix[reused - 1] ?? null;
    }

    const ends =
      tokens && attribution
        ? this.spanEnds(
            plan,
            reused,
            offset,
            tokens.promptIds.length,
            tokens.promptMessageIndices && attribution,
          )
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
      let path: TokenSequence | undefined;
      if (tokens && attribution) {
        const end = ends[j - reused]!;
        node.tokenIds = tokens.promptIds.slice(start, end);
        node.mask = falses(end - start);
        node.logprobs = zeros(end - start);
        const content = attribution.isContent(start, end);
        if (content) node.isContent = content;
        path = tokens.promptIds.prefix(end);
        start = end;
      }
      parent = this.add(node, path);
    }

    const reply: GraphNode = {
      parent,
      message: response.message,
      hash: response.messageHash ?? messageDigest(response.message),
      sampled: true,
      timestamp: now,
      finishReason: response.finishReason,
    };
    if (response.weightVersion !== undefined) reply.weightVersion = response.weightVersion;
    if (tokens?.bridgeDeclined) reply.bridgeDeclined = tokens.bridgeDeclined;
    if (response.tokenBudget !== undefined) reply.tokenBudget = response.tokenBudget;
    if (response.toolCallFailures?.length) reply.toolCallFailures = response.toolCallFailures;
    let replyPath: TokenSequence | undefined;
    if (tokens && attribution) {
      // The generation prompt (e.g. `<|im_start|>assistant\n`) is scaffold the model did not
      // sample, so it rides on the reply node with mask false.
      const completion = tokens.completionIds;
      const gen = tokens.promptIds.length - start;
      const total = gen + completion.length;
      // Each array sized once and packed (a trace's token arrays are most of what a rollout
      // allocates, and records are serialized).
      const ids = zeros(total);
      const mask = falses(total);
      const logprobs = doubleZeros(total);
      for (let k = 0; k < gen; k++) ids[k] = tokens.promptIds.at(start + k)!;
      const completionLogprobs = tokens.completionLogprobs;
      for (let k = 0; k < completion.length; k++) {
        ids[gen + k] = completion[k]!;
        mask[gen + k] = true;
        logprobs[gen + k] = completionLogprobs[k]!;
      }
      reply.tokenIds = ids;
      reply.mask = mask;
      reply.logprobs = logprobs;
      const spans = response.weightVersionSpans;
      if (spans && spans.length > 1)
        reply.versionSpans = spans.map((sp) => ({
          version: sp.version,
          start: gen + sp.start,
          end: gen + sp.end,
        }));
      const content = attribution.isContent(start, tokens.promptIds.length, completion.length);
      if (content) reply.isContent = content;
      // Written where the next bridged prompt will carry these ids, so it shares this buffer.
      replyPath = tokens.promptIds.append(tokens.completionIds);
    }
    const idx = this.add(reply, replyPath);
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
    attribution: PromptAttribution | undefined,
  ): number[] {
    const count = plan.messages.length - reused;
    if (count === 0) return [];
    if (!attribution) return new Array(count).fill(promptLen);
    // Per new message, the end of its last attributed token (0: none), then the running max.
    const ends = zeros(count);
    const indices = attribution.indices;
    const start = attribution.start;
    for (let pos = Math.max(offset, start); pos < promptLen; pos++) {
      const mi = indices[pos - start]!;
      if (!(mi >= 0)) continue;
      const slot = (mi > reused ? mi : reused) - reused;
      if (slot < count) ends[slot] = pos + 1;
    }
    let end = offset;
    for (let k = 0; k < count; k++) {
      if (ends[k]! > end) end = ends[k]!;
      ends[k] = end;
    }
    return ends;
  }

  /**
   * The hash of the child of `parent` (its `edges`) whose message is `m` itself, if there is one:
   * the newest child first (a conversation that only grows has no other).
   */
  private knownHash(parent: number | null, edges: Map<string, number[]>, m: Message): string | undefined {
    const newest = parent === null ? this.newestRoot : this.newestChild[parent]!;
    if (newest < 0) return undefined;
    if (this.nodes[newest]!.message === m) return this.nodes[newest]!.hash;
    for (const [hash, children] of edges)
      for (const c of children) if (this.nodes[c]!.message === m) return hash;
    return undefined;
  }

  private edgesOf(parent: number | null): Map<string, number[]> | undefined {
    return parent === null ? this.rootEdges : this.childEdges[parent];
  }

  private add(node: GraphNode, path: TokenSequence | undefined): number {
    const idx = this.nodes.length;
    this.nodes.push(node);
    this.pathIds.push(path);
    this.newestChild.push(-1);
    if (node.parent === null) this.newestRoot = idx;
    else this.newestChild[node.parent] = idx;
    this.childEdges.push(undefined);
    let edges = this.edgesOf(node.parent);
    if (!edges) {
      edges = new Map();
      // Only a node's edges are created lazily (the root's always exist).
      this.childEdges[node.parent as number] = edges;
    }
    const list = edges.get(node.hash);
    if (list) list.push(idx);
    else edges.set(node.hash, [idx]);
    return idx;
  }

  /** Node indices from the root down to `leaf` (empty for null). */
  path(leaf: number | null): number[] {
    return nodePath(this.nodes, leaf);
  }

  leaves(): number[] {
    const out: number[] = [];
    for (let i = 0; i < this.nodes.length; i++) if (this.newestChild[i]! < 0) out.push(i);
    return out;
  }
}

/** Indices of `nodes` from the root down to `leaf` (empty for null). */
export function nodePath(nodes: readonly GraphNode[], leaf: number | null): number[] {
  const out: number[] = [];
  for (let i = leaf; i !== null; i = nodes[i]!.parent) out.push(i);
  return out.reverse();
}
