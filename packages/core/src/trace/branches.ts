/**
 * Branches: every root-to-leaf path of the graph is one training sample. A harness that
 * compacts its history sends a prompt that extends no existing path, which starts a new root
 * and therefore a new branch, while the graph itself stays linear in the tokens it holds.
 */

import type { MessageGraph } from "./graph.ts";
import type { BranchRecord } from "./record.ts";

export function branchRecord(graph: MessageGraph, leaf: number): BranchRecord {
  const path = graph.path(leaf);
  let total = 0;
  for (const i of path) total += graph.nodes[i]!.tokenIds?.length ?? 0;
  // Sized once: branches are built for every finished trace, so per-token pushes add up.
  const b: BranchRecord = {
    node_indices: path,
    token_ids: new Array(total),
    sampled_mask: new Array(total),
    logprobs: new Array(total),
    weight_versions: new Array(total),
  };
  let at = 0;
  for (const i of path) {
    const n = graph.nodes[i]!;
    const ids = n.tokenIds;
    if (!ids) continue;
    const version = n.weightVersion ?? null;
    for (let k = 0; k < ids.length; k++, at++) {
      const sampled = n.mask?.[k] ?? false;
      b.token_ids[at] = ids[k]!;
      b.sampled_mask[at] = sampled;
      b.logprobs[at] = sampled ? (n.logprobs?.[k] ?? 0) : 0;
      b.weight_versions[at] = sampled ? version : null;
    }
  }
  return b;
}

export function branchRecords(graph: MessageGraph): BranchRecord[] {
  return graph.leaves().map((leaf) => branchRecord(graph, leaf));
}
