/**
 * Branches: every root-to-leaf path of the graph is one training sample. A harness that
 * compacts its history sends a prompt that extends no existing path, which starts a new root
 * and therefore a new branch, while the graph itself stays linear in the tokens it holds.
 */

import type { MessageGraph } from "./graph.ts";
import type { BranchRecord } from "./record.ts";

export function branchRecord(graph: MessageGraph, leaf: number): BranchRecord {
  const b: BranchRecord = {
    node_indices: graph.path(leaf),
    token_ids: [],
    sampled_mask: [],
    logprobs: [],
    weight_versions: [],
  };
  for (const i of b.node_indices) {
    const n = graph.nodes[i]!;
    const ids = n.tokenIds;
    if (!ids) continue;
    for (let k = 0; k < ids.length; k++) {
      const sampled = n.mask?.[k] ?? false;
      b.token_ids.push(ids[k]!);
      b.sampled_mask.push(sampled);
      b.logprobs.push(sampled ? (n.logprobs?.[k] ?? 0) : 0);
      b.weight_versions.push(sampled ? (n.weightVersion ?? null) : null);
    }
  }
  return b;
}

export function branchRecords(graph: MessageGraph): BranchRecord[] {
  return graph.leaves().map((leaf) => branchRecord(graph, leaf));
}
