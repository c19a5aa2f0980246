/**
 * Samples → Parquet with real list columns (tokens int32, loss_mask int32, rollout_log_probs
 * double), so `pyarrow`/`pandas`/`datasets` read token arrays as arrays instead of JSON strings.
 *
 * The schema is explicit: hyparquet-writer would otherwise guess element types from the data
 * (an all-zero logprob list looks like integers) and cannot type an empty column at all.
 * Nested, rarely-needed fields (metadata, a reward dict) are JSON columns: the writer encodes
 * each object once, so a reader gets the object back with one decode (hyparquet decodes it
 * itself; pyarrow hands back the JSON text).
 */
import { parquetWriteBuffer } from "hyparquet-writer";
import type { MilesSample } from "../../miles/sample.ts";

type Element = Record<string, unknown>;

function listOf(name: string, type: "INT32" | "DOUBLE" | "BYTE_ARRAY"): Element[] {
  return [
    { name, repetition_type: "REQUIRED", converted_type: "LIST", num_children: 1 },
    { name: "list", repetition_type: "REPEATED", num_children: 1 },
    {
      name: "element",
      repetition_type: "REQUIRED",
      type,
      ...(type === "BYTE_ARRAY" ? { converted_type: "UTF8" } : {}),
    },
  ];
}

const scalar = (name: string, type: string, optional = false, extra: Element = {}): Element[] => [
  { name, type, repetition_type: optional ? "OPTIONAL" : "REQUIRED", ...extra },
];
const str = (name: string, optional = false) =>
  scalar(name, "BYTE_ARRAY", optional, { converted_type: "UTF8" });
const json = (name: string) => scalar(name, "BYTE_ARRAY", true, { converted_type: "JSON" });

/** Column name → (schema elements, value of one sample). Order is the file's column order. */
const COLUMNS: [Element[], (s: MilesSample) => unknown][] = [
  [scalar("group_index", "INT32"), (s) => s.group_index ?? 0],
  [scalar("index", "INT32"), (s) => s.index ?? 0],
  [scalar("rollout_id", "INT32", true), (s) => s.rollout_id],
  [str("trace_id"), (s) => s.metadata.envroll.trace_id],
  [scalar("task_index", "INT32"), (s) => s.metadata.envroll.task_index],
  [scalar("rollout_index", "INT32"), (s) => s.metadata.envroll.rollout_index],
  [str("prompt"), (s) => (typeof s.prompt === "string" ? s.prompt : JSON.stringify(s.prompt))],
  [listOf("tokens", "INT32"), (s) => s.tokens],
  [str("response"), (s) => s.response],
  [scalar("response_length", "INT32"), (s) => s.response_length],
  [listOf("loss_mask", "INT32"), (s) => s.loss_mask],
  [listOf("rollout_log_probs", "DOUBLE"), (s) => s.rollout_log_probs],
  [str("label", true), (s) => s.label],
  [
    scalar("reward", "DOUBLE"),
    (s) => (typeof s.reward === "number" ? s.reward : (s.reward?.["reward"] ?? 0)),
  ],
  [json("rewards"), (s) => (s.reward !== null && typeof s.reward === "object" ? s.reward : null)],
  [str("status"), (s) => s.status],
  [scalar("remove_sample", "BOOLEAN"), (s) => s.remove_sample],
  [listOf("weight_versions", "BYTE_ARRAY"), (s) => s.weight_versions],
  [json("metadata"), (s) => s.metadata],
];

export function samplesToParquet(samples: readonly MilesSample[]): ArrayBuffer {
  const schema = [{ name: "root", num_children: COLUMNS.length }, ...COLUMNS.flatMap(([els]) => els)];
  const columnData = COLUMNS.map(([els, get]) => ({
    name: els[0]!["name"] as string,
    data: samples.map(get),
  }));
  // The writer's SchemaElement type is stricter than plain objects; the shape above is the spec's.
  return parquetWriteBuffer({ columnData, schema } as unknown as Parameters<typeof parquetWriteBuffer>[0]);
}

/** One JSON sample per line (Miles' `Sample.to_dict()` shape). */
export function samplesToJsonl(samples: readonly MilesSample[]): string {
  return samples.map((s) => `${JSON.stringify(s)}\n`).join("");
}
