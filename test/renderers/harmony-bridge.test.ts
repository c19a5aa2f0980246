/**
 * The gpt-oss bridge over 32-turn tool episodes: every turn's prompt extends the exact sampled
 * ids of all earlier turns (analysis, either header order, `<|constrain|>`, `<|return|>`,
 * truncation, ids after the stop), its new part is exactly the full render's tail, and where the
 * model samples the template's own form the bridged prompt IS the full render. A finished
 * `<|return|>` turn and dropped past reasoning are the documented differences; declines say why.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { mulberry32 } from "../../packages/core/src/random.ts";
import { expandBridged } from "../../packages/core/src/renderers/common/bridge.ts";
import { HARMONY_IDS } from "../../packages/core/src/renderers/harmony/format.ts";
import type { RenderMessage, RenderTool } from "../../packages/core/src/renderers/renderer.ts";
import type { TokenIds } from "../../packages/core/src/token-sequence.ts";
import { gptOssTokenizer, rendererFor } from "./harmony-fixtures.ts";

const TOOLS: RenderTool[] = [
  {
    type: "function",
    function: {
      name: "get_weather",
      description: "Weather for a city",
      parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    },
  },
  { type: "function", function: { name: "get_time", description: "Current time" } },
];
const { start: START, end: END, call: CALL, return: RETURN } = HARMONY_IDS;

/** The assistant message a TrainClient builds from a parsed completion. */
function assistantFrom(completion: number[], turn: number): RenderMessage {
  const p = rendererFor().parse(completion);
  const msg: RenderMessage = { role: "assistant", content: p.content };
  if (p.reasoningContent !== null) msg.reasoning_content = p.reasoningContent;
  const calls = p.toolCalls.filter((c) => c.status === "ok");
  if (calls.length > 0)
    msg.tool_calls = calls.map((c, k) => ({
      id: `call_${turn}_${k}`,
      type: "function",
      function: { name: c.name, arguments: c.raw },
    }));
  return msg;
}

interface Sample {
  text: string;
  kind: "call" | "final" | "truncated";
}

function sample(rand: () => number, t: number, canonical: boolean): Sample {
  const analysis =
    rand() < 0.5 ? `<|channel|>analysis<|message|>Turn ${t}: think ü.<|end|><|start|>assistant` : "";
  const name = rand() < 0.5 ? "get_weather" : "get_time";
  const args = name === "get_weather" ? `{"city": "${rand() < 0.5 ? "Paris" : "東京"}"}` : "{}";
  const r = rand();
  if (canonical || r < 0.55) {
    // The template's header order, or the order the model often samples (recipient after the channel).
    const header =
      canonical || rand() < 0.5
        ? ` to=functions.${name}<|channel|>commentary json`
        : `<|channel|>commentary to=functions.${name} <|constrain|>json`;
    const junk = !canonical && rand() < 0.2 ? "<|start|>assistant<|channel|>final" : "";
    return { text: `${analysis}${header}<|message|>${args}<|call|>${junk}`, kind: "call" };
  }
  if (r < 0.9) return { text: `${analysis}<|channel|>final<|message|>Answer ${t}.<|return|>`, kind: "final" };
  return { text: `${analysis}<|channel|>final<|message|>Cut sho`, kind: "truncated" };
}

function episode(seed: number, canonical: boolean) {
  const r = rendererFor();
  const tok = gptOssTokenizer();
  const rand = mulberry32(seed);
  const messages: RenderMessage[] = [];
  if (rand() < 0.5) messages.push({ role: "system", content: "Use the tools." });
  messages.push({ role: "user", content: "What is the weather?" });
  let prompt: TokenIds = r.render(messages, { tools: TOOLS, addGenerationPrompt: true }).tokenIds;
  const declines: string[] = [];
  for (let t = 0; t < 32; t++) {
    const s = sample(rand, t, canonical);
    const completion = tok.encode(s.text);
    const assistant = assistantFrom(completion, t);
    const calls = (assistant.tool_calls ?? []) as { id: string }[];
    const next: RenderMessage[] =
      calls.length > 0
        ? calls.map((c) => ({ role: "tool", tool_call_id: c.id, content: `{"t": ${t}, "sky": "clear"}` }))
        : [{ role: "user", content: `turn ${t + 1}: and now?` }];
    if (!canonical && rand() < 0.1) next.push({ role: "system", content: "late note" });
    messages.push(assistant, ...next);
    const raw = r.bridge(prompt, completion, next, {
      tools: TOOLS,
      messages,
      onDecline: (w) => declines.push(w),
    });
    assert.ok(raw, `seed ${seed} turn ${t}: ${declines.at(-1)}`);
    const b = expandBridged(raw);
    const close = completion.findIndex((id) => id === CALL || id === RETURN);
    const keep = close >= 0 ? close + 1 : completion.length;
    assert.deepEqual(b.tokenIds.slice(0, prompt.length + keep), [...prompt, ...completion.slice(0, keep)]);
    if (s.kind === "truncated") assert.equal(b.tokenIds[prompt.length + keep], END, "synthesized close");
    const full = r.render(messages, { tools: TOOLS, addGenerationPrompt: true }).tokenIds;
    const tail = b.tokenIds.slice(raw.prefixLength);
    assert.equal(raw.prefixLength, prompt.length + keep + (s.kind === "truncated" ? 1 : 0));
    assert.deepEqual(
      tail,
      full.slice(full.length - tail.length),
      `seed ${seed} turn ${t}: tail = full render's tail`,
    );
    assert.ok(b.sampledMask.every((x) => !x));
    assert.equal(b.messageIndices.length, b.tokenIds.length);
    if (canonical) assert.deepEqual(b.tokenIds, full, `seed ${seed} turn ${t}: bridged = full render`);
    prompt = raw.tokenIds;
  }
  return { r, messages, prompt };
}

test("gpt-oss: 32-turn tool episodes bridge every turn, extending the exact sampled ids", () => {
  for (let seed = 1; seed <= 12; seed++) episode(seed, false);
});

test("gpt-oss: when the model samples the template's own form, the bridged prompt is the full render", () => {
  for (let seed = 1; seed <= 4; seed++) episode(seed, true);
});

test("gpt-oss: a finished answer stays as sampled — <|return|> and its analysis — where a full render rewrites it", () => {
  const r = rendererFor();
  const tok = gptOssTokenizer();
  const messages: RenderMessage[] = [{ role: "user", content: "2+2?" }];
  const prompt = r.render(messages, { addGenerationPrompt: true }).tokenIds;
  const completion = tok.encode(
    "<|channel|>analysis<|message|>Easy.<|end|><|start|>assistant<|channel|>final<|message|>4<|return|>",
  );
  const next = [{ role: "user", content: "and 3+3?" }];
  messages.push(assistantFrom(completion, 0), ...next);
  const raw = r.bridge(prompt, completion, next, { messages });
  assert.ok(raw);
  const b = { ...expandBridged(raw), prefixLength: raw.prefixLength };
  const full = r.render(messages, { addGenerationPrompt: true }).tokenIds;
  assert.deepEqual(b.tokenIds.slice(0, prompt.length + completion.length), [...prompt, ...completion]);
  assert.ok(b.tokenIds.includes(RETURN));
  const fullText = tok.decode(full);
  assert.ok(
    !full.includes(RETURN) && !fullText.includes("Easy."),
    "the full render writes <|end|> and drops the analysis",
  );
  assert.ok(
    fullText.endsWith(
      "<|channel|>final<|message|>4<|end|><|start|>user<|message|>and 3+3?<|end|><|start|>assistant",
    ),
  );
  assert.deepEqual(
    b.tokenIds.slice(b.prefixLength),
    full.slice(full.length - (b.tokenIds.length - (b.prefixLength ?? 0))),
  );
});

test("gpt-oss bridge: a turn that ended on <|end|> is carried as is; tool authors come from the sampled call", () => {
  const r = rendererFor();
  const tok = gptOssTokenizer();
  const prompt = r.render([{ role: "user", content: "hi" }], { addGenerationPrompt: true }).tokenIds;
  const ended = tok.encode("<|channel|>analysis<|message|>hm<|end|>");
  const b = r.bridge(prompt, ended, [{ role: "user", content: "go on" }]);
  assert.ok(b);
  assert.deepEqual(b.tokenIds.slice(0, prompt.length + ended.length), [...prompt, ...ended]);
  assert.equal(b.tokenIds.at(prompt.length + ended.length), START);
  // No conversation given: the result is authored by the function the sampled turn called.
  const called = tok.encode(
    "<|channel|>commentary to=functions.get_time <|constrain|>json<|message|>{}<|call|>",
  );
  const t = r.bridge(prompt, called, [{ role: "tool", tool_call_id: "x", content: "noon" }]);
  assert.ok(t);
  assert.ok(
    tok
      .decode(t.tokenIds.toArray())
      .endsWith(
        '<|start|>functions.get_time to=assistant<|channel|>commentary<|message|>"noon"<|end|><|start|>assistant',
      ),
  );
  assert.deepEqual(t.messageToolNames, ["get_time"]);
});

test("gpt-oss bridge: declines, saying why, where the next prompt cannot be proven", () => {
  const r = rendererFor();
  const tok = gptOssTokenizer();
  const prompt = r.render([{ role: "user", content: "hi" }], { addGenerationPrompt: true }).tokenIds;
  const why = (completion: number[], next: RenderMessage[], messages?: RenderMessage[]) => {
    const reasons: string[] = [];
    assert.equal(r.bridge(prompt, completion, next, { messages, onDecline: (w) => reasons.push(w) }), null);
    return reasons.join();
  };
  const user = [{ role: "user", content: "more" }];
  assert.match(why(tok.encode("<|channel|>anal"), user), /cut inside a message header/);
  assert.match(why([], user), /cut inside a message header/);
  assert.match(
    why(tok.encode("<|channel|>analysis<|message|>x<|end|><|start|>assistant<|channel|>fi"), user),
    /cut inside a message header/,
  );
  const final = tok.encode("<|channel|>final<|message|>done<|return|>");
  assert.match(why(final, [{ role: "tool", content: "orphan" }]), /tool result with no name/);
  assert.match(why(final, [{ role: "assistant", content: "x" }]), /assistant/);
  assert.match(why(final, []), /no new messages/);
  assert.equal(r.bridge([], final, user), null);
});
