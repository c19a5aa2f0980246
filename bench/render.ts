/**
 * Renderer hot-path benchmark: full render of a 32-turn tool conversation (cold and warm piece
 * cache), one bridge step and one parse. Prints one JSON line per metric:
 * {"name", "value", "unit"}. Run: node --import tsx bench/render.ts
 */
import { Qwen3Renderer } from "../packages/core/src/renderers/qwen3/renderer.ts";
import type { RenderMessage, RenderTool } from "../packages/core/src/renderers/renderer.ts";
import { loadTokenizer } from "../packages/core/src/tokenizer/index.ts";
import { SEARCH_TOOL } from "./lib/corpus.ts";
import { median } from "./lib/report.ts";

const TOOLS: RenderTool[] = [SEARCH_TOOL];

/** 32 turns: each is an assistant tool call (with reasoning) and its tool result. */
function conversation(turns: number, salt: string): RenderMessage[] {
  const msgs: RenderMessage[] = [
    { role: "system", content: "You are a careful research assistant." },
    { role: "user", content: `Find facts about topic ${salt}; cite every source you use.` },
  ];
  for (let t = 0; t < turns; t++) {
    msgs.push({
      role: "assistant",
      content: t % 3 === 0 ? `Looking up part ${t} of ${salt}.` : "",
      reasoning_content: `Step ${t}: I should search for detail ${t} about ${salt} and compare sources.`,
      tool_calls: [
        {
          id: `c${t}`,
          type: "function",
          function: { name: "search", arguments: { query: `${salt} detail ${t}`, top_k: 3 } },
        },
      ],
    });
    msgs.push({
      role: "tool",
      tool_call_id: `c${t}`,
      content: `Result ${t}: ${salt} has property ${t * 7} (source: example.org/${t}). `.repeat(4),
    });
  }
  return msgs;
}

function emit(name: string, value: number, unit: string): void {
  process.stdout.write(`${JSON.stringify({ name, value: Number(value.toFixed(3)), unit })}\n`);
}

const tok = loadTokenizer();
const r = new Qwen3Renderer({}, tok);

// Cold: fresh text each repetition, so the BPE piece cache cannot help with the bodies.
const cold: number[] = [];
let tokens = 0;
for (let i = 0; i < 15; i++) {
  const msgs = conversation(32, `cold-${i}-${Math.random().toString(36).slice(2)}`);
  const t0 = performance.now();
  tokens = r.render(msgs, { tools: TOOLS, addGenerationPrompt: true }).tokenIds.length;
  cold.push(performance.now() - t0);
}
// Warm: the same conversation re-rendered (a rollout re-rendering its history).
const warmMsgs = conversation(32, "warm");
const warm: number[] = [];
for (let i = 0; i < 30; i++) {
  const t0 = performance.now();
  r.render(warmMsgs, { tools: TOOLS, addGenerationPrompt: true });
  warm.push(performance.now() - t0);
}
emit("render_32turn_tool_tokens", tokens, "tokens");
emit("render_32turn_tool_cold_median", median(cold), "ms");
emit("render_32turn_tool_cold_throughput", tokens / (median(cold) / 1000), "tokens/s");
emit("render_32turn_tool_warm_median", median(warm), "ms");
emit("render_32turn_tool_warm_throughput", tokens / (median(warm) / 1000), "tokens/s");

// Bridge: extend the 32-turn prompt by one tool result (cost should follow the new tokens only).
const prompt = r.render(warmMsgs.slice(0, -2), { tools: TOOLS, addGenerationPrompt: true }).tokenIds;
const asst = r.render(warmMsgs.slice(0, -1), { tools: TOOLS });
const completion = asst.tokenIds.filter(
  (_, i) => asst.messageIndices[i] === warmMsgs.length - 2 && asst.sampledMask[i],
);
const bridge: number[] = [];
for (let i = 0; i < 200; i++) {
  const t0 = performance.now();
  r.bridge(prompt, completion, [
    { role: "tool", tool_call_id: "x", content: `fresh result ${i} ${Math.random()}` },
  ]);
  bridge.push(performance.now() - t0);
}
emit("bridge_after_32turn_median", median(bridge), "ms");

const parse: number[] = [];
for (let i = 0; i < 200; i++) {
  const t0 = performance.now();
  r.parse(completion);
  parse.push(performance.now() - t0);
}
emit("parse_tool_call_completion_median", median(parse), "ms");
