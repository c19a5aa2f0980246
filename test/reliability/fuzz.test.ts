/**
 * Property-based fuzz of everything that reads model output: 200,000 seeded malformed completions
 * (FUZZ_COUNT overrides, e.g. FUZZ_COUNT=20000 for a quick run; FUZZ_SEED picks the stream) go
 * through the Qwen3 renderer's parse, the generic Jinja renderer's parse, the Qwen3 bridge
 * (tool replies to whatever was parsed) and the Miles conversion of the resulting trace.
 *
 * Properties: nothing throws; tool-call spans lie inside the completion and are ordered;
 * statuses come from the enum; an `ok` call has a name; a bridge keeps the sampled ids verbatim
 * and aligns its arrays; a Miles sample keeps `tokens`/`loss_mask`/logprobs aligned and its status
 * from Miles' enum. A failing case prints its seed index and ids so it can be replayed.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { rawJsonMember } from "../../packages/core/src/clients/json-member.ts";
import { SampleCounter, tracesToGroup } from "../../packages/core/src/miles/convert.ts";
import { groupSamples, sampleViolations } from "../../packages/core/src/miles/sample.ts";
import { expandBridged } from "../../packages/core/src/renderers/common/bridge.ts";
import { createRenderer } from "../../packages/core/src/renderers/index.ts";
import { JinjaRenderer } from "../../packages/core/src/renderers/jinja/renderer.ts";
import type {
  ParsedResponse,
  RenderMessage,
  RenderTool,
} from "../../packages/core/src/renderers/renderer.ts";
import { pyJsonLoads } from "../../packages/core/src/text/py-json.ts";
import { loadTokenizer } from "../../packages/core/src/tokenizer/index.ts";
import type { TraceRecord } from "../../packages/core/src/trace/record.ts";
import { trace } from "../miles/traces.ts";
import { ENDOFTEXT, FuzzGenerator, IM_END } from "./fuzz-gen.ts";

const COUNT = Number(process.env.FUZZ_COUNT ?? 200_000);
const SEED = Number(process.env.FUZZ_SEED ?? 20_261_129);
const STATUSES = new Set(["ok", "invalid_json", "unclosed_block", "missing_name", "malformed_structure"]);
const SAMPLE_STATUSES = new Set(["pending", "completed", "truncated", "aborted", "failed"]);

const TOOLS: RenderTool[] = [
  {
    type: "function",
    function: {
      name: "calculator",
      description: "Evaluates an arithmetic expression.",
      parameters: {
        type: "object",
        properties: { expression: { type: "string" } },
        required: ["expression"],
      },
    },
  },
];

function checkParsed(p: ParsedResponse, length: number, what: string): void {
  assert.equal(typeof p.content, "string", `${what}: content`);
  assert.ok(p.reasoningContent === null || typeof p.reasoningContent === "string", `${what}: reasoning`);
  let last = 0;
  for (const c of p.toolCalls) {
    assert.ok(STATUSES.has(c.status), `${what}: status ${c.status}`);
    const [start, end] = c.tokenSpan;
    assert.ok(Number.isInteger(start) && Number.isInteger(end), `${what}: span not integers`);
    assert.ok(
      last <= start && start <= end && end <= length,
      `${what}: span [${start}, ${end}) of ${length}`,
    );
    last = end;
    assert.equal(typeof c.raw, "string", `${what}: raw`);
    // Python parity: any truthy `name` is ok (a number too); the harness rejects unknown tools.
    if (c.status === "ok") {
      assert.ok(c.name !== null && c.name !== undefined, `${what}: ok without name`);
      // TrainClient hands the tool the model's own `arguments` text: it must say what was parsed.
      const raw = rawJsonMember(c.raw, "arguments");
      if (raw !== null) assert.deepEqual(pyJsonLoads(raw), c.arguments, `${what}: raw arguments differ`);
    }
  }
}

/** What the default harness would send back: one tool reply per parsed call, else a user turn. */
function replies(p: ParsedResponse): RenderMessage[] {
  if (p.toolCalls.length === 0) return [{ role: "user", content: "continue" }];
  return p.toolCalls.map((c, i) => ({
    role: "tool",
    tool_call_id: c.id ?? `call_${i}`,
    content: c.status === "ok" ? "42" : `error: ${c.status}`,
  }));
}

function fuzzTrace(i: number, prompt: number[], completion: number[], tail: number[]): TraceRecord {
  const ids = [...prompt, ...completion, ...tail];
  const sampled = ids.map((_, k) => k >= prompt.length && k < prompt.length + completion.length);
  // The rest (one completed turn, no nodes, task and rollout 0) is the Miles tests' trace.
  return trace({
    id: `fuzz-${i}`,
    task: { type: "Task", data: { idx: 0, prompt: [{ role: "user", content: "q" }], answer: "42" } },
    branches: [
      {
        node_indices: [0, 1],
        token_ids: ids,
        sampled_mask: sampled,
        logprobs: sampled.map((s, k) => (s ? -((k % 7) + 1) / 8 : 0)),
        weight_versions: sampled.map((s) => (s ? "v1" : null)),
      },
    ],
    reward: i % 2,
    rewards: { correct: i % 2 },
    metrics: {},
    errors: i % 5 === 0 ? [{ type: "TurnAbortedError", message: "aborted" }] : [],
    stop_condition: i % 5 === 0 ? null : "agent_completed",
    is_completed: i % 5 !== 0,
    is_truncated: completion.at(-1) !== IM_END,
    last_reply: "",
    usage: { prompt_tokens: prompt.length, completion_tokens: completion.length, total_tokens: ids.length },
  });
}

test(
  `fuzz: ${COUNT} malformed completions through parse, bridge and Miles conversion`,
  { timeout: 300_000 },
  () => {
    const started = performance.now();
    const tokenizer = loadTokenizer("qwen3");
    const qwen3 = createRenderer("qwen3");
    const jinja = new JinjaRenderer(tokenizer, { name: "qwen3-jinja", toolParser: "qwen3" });
    const prompt = qwen3.render(
      [
        { role: "system", content: "You can use tools." },
        { role: "user", content: "What is 6*7?" },
      ],
      { tools: TOOLS, addGenerationPrompt: true },
    ).tokenIds;
    const gen = new FuzzGenerator(tokenizer, SEED);
    const counter = new SampleCounter();
    const seen = {
      toolCalls: 0,
      statuses: {} as Record<string, number>,
      bridged: 0,
      declined: 0,
      samples: 0,
    };
    for (let i = 0; i < COUNT; i++) {
      const { ids } = gen.next();
      try {
        const tools = i % 3 === 0 ? null : TOOLS;
        const parsed = qwen3.parse(ids, { tools });
        checkParsed(parsed, ids.length, "qwen3");
        for (const c of parsed.toolCalls) seen.statuses[c.status] = (seen.statuses[c.status] ?? 0) + 1;
        seen.toolCalls += parsed.toolCalls.length;
        // The generic renderer decodes the whole completion: every 4th case keeps the run short.
        if (i % 4 === 0) checkParsed(jinja.parse(ids, { tools }), ids.length, "jinja");

        const raw = qwen3.bridge(prompt, ids, replies(parsed), { tools: TOOLS });
        const bridged = raw && expandBridged(raw);
        let tail: number[] = [];
        if (bridged) {
          seen.bridged++;
          const n = bridged.tokenIds.length;
          assert.ok(
            bridged.messageIndices.length === n &&
              bridged.sampledMask.length === n &&
              bridged.isContent.length === n,
            "bridge arrays misaligned",
          );
          // The sampled ids are reused verbatim up to the first turn close, where parse ends the
          // turn (or all of them + a close).
          const close = ids.findIndex((id) => id === IM_END || id === ENDOFTEXT);
          const kept = close >= 0 ? ids.slice(0, close + 1) : ids;
          assert.deepEqual(bridged.tokenIds.slice(0, prompt.length + kept.length), [...prompt, ...kept]);
          tail = bridged.tokenIds.slice(prompt.length + kept.length);
        } else seen.declined++;

        const group = tracesToGroup([fuzzTrace(i, prompt, ids, tail)], counter);
        for (const s of groupSamples(group)) {
          seen.samples++;
          assert.ok(SAMPLE_STATUSES.has(s.status), `sample status ${s.status}`);
          assert.deepEqual(sampleViolations(s), []);
          assert.equal(s.loss_mask.length, s.response_length);
          assert.equal(s.rollout_log_probs.length, s.response_length);
          assert.ok(s.response_length <= s.tokens.length);
        }
      } catch (err) {
        throw new Error(
          `fuzz case ${i} (seed ${SEED}) failed on ids ${JSON.stringify(ids)}: ${String(err)}`,
          {
            cause: err,
          },
        );
      }
    }
    const seconds = Math.round((performance.now() - started) / 100) / 10;
    console.log(
      JSON.stringify({ suite: "fuzz", completions: COUNT, seed: SEED, ...seen, throws: 0, seconds }),
    );
    // The generator must reach the interesting paths, or the run proves little.
    assert.ok(seen.statuses.ok! > COUNT / 50, "too few well-formed tool calls");
    for (const s of ["invalid_json", "unclosed_block"])
      assert.ok((seen.statuses[s] ?? 0) > 0, `no ${s} call`);
    assert.ok(seen.bridged > COUNT / 4);
  },
);
