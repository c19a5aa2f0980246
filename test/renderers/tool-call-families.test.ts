/**
 * Tool calls through the generic path for every family whose template has them (issue 33
 * item 2), each with the checkpoint folder's own template and the parser its identity picks:
 * Llama 3.1 (the release template: bare JSON + <|eot_id|>, or <|python_tag|> … <|eom_id|>),
 * DeepSeek-V3 (its call tokens) and Qwen3's template. A call the template renders, sampled as
 * those ids, parses back to the call, and the parsed call rendered again through the template
 * gives the same ids (exact round trip). Where the model samples a call differently from how
 * the template renders it (Llama's `<|python_tag|>` form), the bridge extends the sampled ids.
 * Gemma 3's template has no tools: a request with tools is refused with a typed error.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { UnsupportedError } from "../../packages/core/src/errors.ts";
import { createRenderer } from "../../packages/core/src/renderers/index.ts";
import { messageValues } from "../../packages/core/src/renderers/jinja/message-values.ts";
import { toTemplateMessages } from "../../packages/core/src/renderers/jinja/plain.ts";
import type { JinjaRenderer } from "../../packages/core/src/renderers/jinja/renderer.ts";
import type {
  ParsedToolCall,
  RenderMessage,
  RenderTool,
} from "../../packages/core/src/renderers/renderer.ts";
import { pyJsonDumps } from "../../packages/core/src/text/py-json.ts";
import { checkpointFolder, llama31Folder } from "../checkpoint-folders.ts";

const TOOLS: RenderTool[] = [
  {
    type: "function",
    function: {
      name: "lookup",
      description: "Look a thing up",
      parameters: { type: "object", properties: { q: { type: "string" }, n: { type: "number" } } },
    },
  },
];

/** Arguments that exercise JSON spelling: unicode, escapes, nesting, floats, empty containers. */
const ARGS = [
  {},
  { q: "東京 weather", n: 3 },
  { q: 'quote " and \\ backslash\nnewline', n: -2.5 },
  { q: "\u3000spaced\u0085", nested: { list: [1, "two", null, true, 0.001], empty: [] } },
];

const make = (dir: string) => createRenderer(dir, { onWarning: () => {} }) as JinjaRenderer;

/**
 * An assistant turn making `calls` (name, arguments; arguments as Python's json.dumps, as the
 * client writes a parsed call). Qwen3's template needs string content; the others take null.
 */
function callMessage(calls: [string, unknown][], content: string | null = null): RenderMessage {
  return {
    role: "assistant",
    content,
    tool_calls: calls.map(([name, args], i) => ({
      id: `call_${i}`,
      type: "function",
      function: { name, arguments: pyJsonDumps(args) },
    })),
  } as RenderMessage;
}

const fromParsed = (calls: ParsedToolCall[], content: string | null = null) =>
  callMessage(
    calls.map((c) => [c.name!, c.arguments]),
    content,
  );

/**
 * `perTurn` calls a turn (Llama's template takes exactly one; DeepSeek's closes its call section
 * only after a second call, so a one-call turn would not end in a stop token).
 */
function roundTrip(r: JinjaRenderer, family: string, perTurn: number, content: string | null = null) {
  for (const [i, args] of ARGS.entries()) {
    const user: RenderMessage = { role: "user", content: `question ${i}` };
    const calls: [string, unknown][] = Array.from({ length: perTurn }, (_, k) => [
      "lookup",
      k ? ARGS[k] : args,
    ]);
    const prompt = [...r.render([user], { tools: TOOLS, addGenerationPrompt: true }).tokenIds];
    const full = [...r.render([user, callMessage(calls, content)], { tools: TOOLS }).tokenIds];
    assert.deepEqual(full.slice(0, prompt.length), prompt, `${family} ${i}: the call extends the prompt`);
    // The model samples through its stop token (Qwen3's template writes a newline after it).
    const stop = full.findLastIndex((id) => r.stopTokenIds.includes(id));
    assert.ok(stop >= prompt.length, `${family} ${i}: the turn ends in a stop token`);
    const sampled = full.slice(prompt.length, stop + 1);
    const parsed = r.parse(sampled, { tools: TOOLS });
    assert.deepEqual(
      parsed.toolCalls.map((c) => [c.status, c.name, c.arguments]),
      calls.map(([name, a]) => ["ok", name, a]),
      `${family} ${i}: ${JSON.stringify(parsed)}`,
    );
    // (Qwen3's empty think block leaves "\n\n" before the calls: not content the template keeps.)
    assert.equal(parsed.content.trim(), "");
    const again = [...r.render([user, fromParsed(parsed.toolCalls, content)], { tools: TOOLS }).tokenIds];
    assert.deepEqual(again, full, `${family} ${i}: the parsed call renders to the sampled ids`);
  }
}

test("Llama 3.1 (release template): rendered calls parse back and re-render to the same ids", () => {
  const r = make(llama31Folder());
  assert.deepEqual(r.stopTokenIds, [128009, 128008]);
  roundTrip(r, "llama3.1", 1);
});

test("DeepSeek-V3: rendered calls parse back and re-render to the same ids", () => {
  roundTrip(make(checkpointFolder("deepseek_v3")), "deepseek-v3", 2);
});

test("Qwen3's template through the generic renderer: rendered calls round-trip", () => {
  const r = createRenderer("generic", {
    tokenizerPath: checkpointFolder("qwen3"),
    toolParser: "qwen3",
    onWarning: () => {},
  }) as JinjaRenderer;
  roundTrip(r, "qwen3", 2, "");
});

test("Llama 3.1: <|python_tag|> calls (JSON and built-in) parse, and the bridge keeps the sampled ids", () => {
  const r = make(llama31Folder());
  const tok = r.tokenizer;
  const user: RenderMessage = { role: "user", content: "look it up" };
  const prompt = r.render([user], { tools: TOOLS, addGenerationPrompt: true }).tokenIds;
  // Sampled the ipython way: compact JSON after the tag, ended by <|eom_id|>.
  const sampled = [...tok.encode('<|python_tag|>{"name":"lookup","parameters":{"q":"x","n":1.5}}'), 128008];
  const parsed = r.parse(sampled, { tools: TOOLS });
  assert.deepEqual(
    parsed.toolCalls.map((c) => [c.name, c.arguments, c.status]),
    [["lookup", { q: "x", n: 1.5 }, "ok"]],
  );
  const builtin = r.parse([...tok.encode('<|python_tag|>brave_search.call(query="sf weather")'), 128008]);
  assert.deepEqual(builtin.toolCalls[0]!.arguments, { query: "sf weather" });
  assert.equal(builtin.toolCalls[0]!.name, "brave_search");
  // The template re-renders the call as bare JSON + <|eot_id|>; the bridge extends what was sampled.
  const messages: RenderMessage[] = [
    user,
    fromParsed(parsed.toolCalls),
    { role: "tool", tool_call_id: "call_0", content: "42" } as RenderMessage,
  ];
  const declines: string[] = [];
  const b = r.bridge(prompt, sampled, messages.slice(2), {
    messages,
    tools: TOOLS,
    onDecline: (why) => declines.push(why),
  });
  assert.ok(b, `bridge declined: ${declines.join("; ")}`);
  assert.deepEqual([...b.tokenIds].slice(0, prompt.length + sampled.length), [...prompt, ...sampled]);
  // (The template writes a string tool result as JSON: a str is `iterable` to Jinja2.)
  const tail = r.decode([...b.tokenIds].slice(prompt.length + sampled.length));
  assert.match(tail, /ipython<\|end_header_id\|>\n\n"42"<\|eot_id\|>/);
});

test("Llama 3.1: a bare JSON reply is a call only when tools were offered; a broken one is a failed attempt", () => {
  const r = make(llama31Folder());
  const ids = [...r.tokenizer.encode('{"name": "lookup", "parameters": {"q": "x"}}'), 128009];
  assert.equal(r.parse(ids).toolCalls.length, 0);
  assert.equal(r.parse(ids).content, '{"name": "lookup", "parameters": {"q": "x"}}');
  assert.equal(r.parse(ids, { tools: TOOLS }).toolCalls[0]!.status, "ok");
  const broken = r.parse([...r.tokenizer.encode('{"name": "lookup", "parameters": {"q": '), 128009], {
    tools: TOOLS,
  });
  assert.deepEqual(
    broken.toolCalls.map((c) => c.status),
    ["invalid_json"],
  );
  // A JSON answer that is not a call stays content.
  const answer = r.parse([...r.tokenizer.encode('{"answer": 4}'), 128009], { tools: TOOLS });
  assert.deepEqual([answer.content, answer.toolCalls.length], ['{"answer": 4}', 0]);
});

test("Gemma 3 and the minimal Llama 3 template have no tools: a request with tools is refused", () => {
  for (const pkg of ["gemma3", "llama3_1"] as const) {
    const r = make(checkpointFolder(pkg));
    const msgs: RenderMessage[] = [{ role: "user", content: "hi" }];
    assert.throws(
      () => r.render(msgs, { tools: TOOLS, addGenerationPrompt: true }),
      (e: unknown) => e instanceof UnsupportedError && /no tool support/.test((e as Error).message),
    );
    assert.doesNotThrow(() => r.render(msgs, { addGenerationPrompt: true }));
  }
});

test("a message with envroll's flat tool calls reaches the template in the wire form, converted once", () => {
  const msgs = [
    { role: "user", content: "q" },
    { role: "assistant", content: "", tool_calls: [{ id: "c", name: "lookup", arguments: '{"q": "x"}' }] },
  ];
  const convert = (x: unknown) => toTemplateMessages(x, true);
  const plain = convert(msgs) as { tool_calls?: unknown }[];
  assert.deepEqual(plain[1]!.tool_calls, [
    { id: "c", type: "function", function: { name: "lookup", arguments: { q: "x" } } },
  ]);
  const first = messageValues(msgs, null, convert);
  const again = messageValues(msgs, first, convert);
  assert.equal(again[1], first[1], "the unchanged tool-call message's value is reused");
  const changed = messageValues([msgs[0]!, { ...msgs[1]!, content: "x" }], first, convert);
  assert.notEqual(changed[1], first[1]);
});
