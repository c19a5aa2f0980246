/**
 * Run with `--allow-natives-syntax`: records a two-turn token trace and prints, per token array
 * of its record (node and branch arrays), whether V8 stores it holey and whether as raw doubles.
 */
import { TokenSequence } from "../../../packages/core/src/token-sequence.ts";
import { Trace } from "../../../packages/core/src/trace/trace.ts";
import type { Message } from "../../../packages/core/src/types.ts";

const holey = new Function("a", "return %HasHoleyElements(a)") as (a: unknown) => boolean;
const doubles = new Function("a", "return %HasDoubleElements(a)") as (a: unknown) => boolean;

const trace = new Trace({ idx: 0 });
const messages: Message[] = [
  { role: "system", content: "s" },
  { role: "user", content: "u" },
];
let prompt = TokenSequence.from([1, 2, 3, 4, 5, 6, 7, 8]);
for (let t = 0; t < 2; t++) {
  const plan = trace.graph.prepareTurn(messages);
  const completionIds = [100 + t, 101 + t, 102 + t];
  const reply = { role: "assistant" as const, content: `r${t}` };
  trace.recordTurn(plan, {
    id: `r${t}`,
    model: "m",
    message: reply,
    finishReason: "stop",
    usage: { promptTokens: prompt.length, completionTokens: 3 },
    tokens: {
      promptIds: prompt,
      completionIds,
      completionLogprobs: [-0.5, -0.25, -0.125],
      promptMessageIndices: Array.from({ length: prompt.length }, (_, i) => Math.min(i >> 2, t * 2 + 1)),
      promptIsContent: Array.from({ length: prompt.length }, (_, i) => i % 3 !== 0),
    },
  });
  messages.push(reply, { role: "user", content: `again ${t}` });
  prompt = prompt.append(completionIds).append([9, 10, 11, 12]);
}
const r = trace.toRecord();
const arrays: Record<string, unknown[]> = {};
r.nodes.forEach((n, i) => {
  for (const k of ["token_ids", "mask", "logprobs", "is_content"] as const)
    if (n[k]) arrays[`nodes[${i}].${k}`] = n[k]!;
});
r.branches.forEach((b, i) => {
  for (const k of ["token_ids", "sampled_mask", "logprobs", "weight_versions"] as const)
    arrays[`branches[${i}].${k}`] = b[k];
});
const out: Record<string, { holey: boolean; doubles: boolean; length: number }> = {};
for (const [k, a] of Object.entries(arrays))
  out[k] = { holey: holey(a), doubles: doubles(a), length: a.length };
process.stdout.write(JSON.stringify(out));
