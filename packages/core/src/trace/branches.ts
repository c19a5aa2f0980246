/**
 * Branches: every root-to-leaf path of the graph is one training sample. A harness that
 * compacts its history sends a prompt that extends no existing path, which starts a new root
 * and therefore a new branch, while the graph itself stays linear in the tokens it holds.
 *
 * A sampled node on several paths (a program that branches after a turn) is trained on in the
 * first branch that reaches it only; the others carry it as context (mask false, logprob 0),
 * so no sampled token weighs twice in the loss.
 */

import { doubleZeros, falses, nulls, zeros } from "../packed-arrays.ts";
import { type GraphNode, type MessageGraph, nodePath } from "./graph.ts";
import type { BranchRecord } from "./record.ts";

/** `owned`: sampled nodes an earlier branch already trains on (updated with this branch's). */
export function branchRecord(graph: MessageGraph, leaf: number, owned?: Set<number>): BranchRecord {
  return branchOf(graph.nodes, leaf, owned);
}

function branchOf(nodes: readonly GraphNode[], leaf: number, owned?: Set<number>): BranchRecord {
  const path = nodePath(nodes, leaf);
  let total = 0;
  for (const i of path) total += nodes[i]!.tokenIds?.length ?? 0;
  // Sized once and packed: branches are built for every finished trace and then serialized.
  const b: BranchRecord = {
    node_indices: path,
    token_ids: zeros(total),
    sampled_mask: falses(total),
    logprobs: doubleZeros(total),
    weight_versions: nulls(total),
  };
  // The arrays start as "not trained" (false, 0, null): only sampled positions are written.
  let at = 0;
  for (const i of path) {
    const n = nodes[i]!;
    const ids = n.tokenIds;
    if (!ids) continue;
    const trains = !n.sampled || owned === undefined || !owned.has(i);
    if (n.sampled) owned?.add(i);
    const tokenIds = b.token_ids;
    for (let k = 0; k < ids.length; k++) tokenIds[at + k] = ids[k]!;
    const mask = n.mask;
    if (trains && mask) {
      const version = n.weightVersion ?? null;
      const logprobs = n.logprobs;
      for (let k = 0; k < ids.length; k++) {
        if (!mask[k]) continue;
        b.sampled_mask[at + k] = mask[k]!;
        b.logprobs[at + k] = logprobs?.[k] ?? 0;
        b.weight_versions[at + k] = version;
      }
      // A turn a weight update split (retract): each token keeps the version that sampled it.
      for (const sp of n.versionSpans ?? [])
        for (let k = sp.start; k < sp.end && k < ids.length; k++)
          if (mask[k]) b.weight_versions[at + k] = sp.version;
    }
    at += ids.length;
  }
  return b;
}

export function branchRecords(graph: MessageGraph): BranchRecord[] {
  return branchesOf(graph.nodes, graph.leaves());
}

/** The branches of `nodes` (a finished graph's, no longer changing) ending at `leaves`. */
export function branchesOf(nodes: readonly GraphNode[], leaves: readonly number[]): BranchRecord[] {
  // One branch trains on every sampled node it has: nothing to track.
  if (leaves.length === 1) return [branchOf(nodes, leaves[0]!)];
  const owned = new Set<number>();
  return leaves.map((leaf) => branchOf(nodes, leaf, owned));
}

const LAZY = Symbol("branches");
interface Lazy {
  nodes: readonly GraphNode[];
  leaves: readonly number[];
  value?: BranchRecord[];
}
type Holder = { [LAZY]: Lazy };

// One accessor pair for every record, so records keep one fast hidden class (an accessor written
// in an object literal is a new pair per record, and turns each record into a dictionary).
const BRANCHES: PropertyDescriptor = {
  get(this: Holder): BranchRecord[] {
    const lazy = this[LAZY];
    lazy.value ??= branchesOf(lazy.nodes, lazy.leaves);
    return lazy.value;
  },
  set(this: Holder, value: BranchRecord[]) {
    this[LAZY].value = value;
  },
  enumerable: true,
  configurable: true,
};

/**
 * Gives a trace record its `branches` (one training sample each), made on first read. They
 * concatenate the nodes' token arrays: a second copy of every per-token array of the rollout,
 * which most records never read (an eval without a trace file, the summary, the report), while
 * JSON.stringify, a spread and Miles conversion read them like any property. `nodes` are a
 * finished graph's: committed nodes never change, and `leaves` fix which paths count, so the
 * branches are the same whenever they are made. The state sits under a symbol that is not
 * enumerable, which JSON, spreads and deep equality skip.
 */
export function defineBranches(record: object, nodes: readonly GraphNode[], leaves: readonly number[]): void {
  Object.defineProperty(record, "branches", BRANCHES);
  Object.defineProperty(record, LAZY, { value: { nodes, leaves } satisfies Lazy });
}
