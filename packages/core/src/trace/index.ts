export { branchRecord, branchRecords } from "./branches.ts";
export { type GraphNode, MessageGraph, type TurnPlan } from "./graph.ts";
export { canonicalJson, messageHash } from "./hash.ts";
export type { BranchRecord, NodeRecord, TraceRecord } from "./record.ts";
export { TRUNCATING_STOPS, Trace, type TraceError } from "./trace.ts";
