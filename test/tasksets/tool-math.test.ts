/** tool-math: the tools, the generated problems, the answer check and the metric. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { runToolCall } from "../../packages/core/src/interception/tools.ts";
import { isCorrect, parseAnswer } from "../../packages/core/src/tasksets/tool-math/answer.ts";
import { evaluate } from "../../packages/core/src/tasksets/tool-math/expression.ts";
import toolMath, { generateTasks, SYSTEM } from "../../packages/core/src/tasksets/tool-math/index.ts";
import { parseQuestion, solve, TEMPLATES } from "../../packages/core/src/tasksets/tool-math/problems.ts";
import { convert } from "../../packages/core/src/tasksets/tool-math/units.ts";
import { named } from "./named.ts";
import { traceView } from "./trace-view.ts";

const tools = typeof toolMath.tools === "function" ? [] : toolMath.tools!;
const ctx = { task: { idx: 0 }, trace: traceView(), runtime: null } as never;

test("calculate: precedence, right-assoc power, unicode operators, and no eval", () => {
  assert.equal(evaluate("(2 + 3) * 4.5 - 1 / 4"), 22.25);
  assert.equal(evaluate("2 ^ 3 ^ 2"), 512);
  assert.equal(evaluate("-2 ** 2"), -4, "unary minus binds looser than ^, as in Python");
  assert.equal(evaluate("7 × 6 ÷ 3 − 1"), 13);
  assert.throws(() => evaluate("1 / 0"), /division by zero/);
  assert.throws(() => evaluate("process.exit(1)"), /unexpected character/);
  assert.throws(() => evaluate("(1 + 2"), /parenthesis/);
  assert.throws(() => evaluate("1 2"), /unexpected/);
});

test("convert: linear and affine units; mismatched dimensions refused", () => {
  assert.ok(Math.abs(convert(1, "mi", "km") - 1.609344) < 1e-12);
  assert.equal(convert(212, "F", "C"), 100);
  assert.ok(Math.abs(convert(0, "C", "K") - 273.15) < 1e-12);
  assert.throws(() => convert(1, "kg", "m"), /cannot convert/);
  assert.throws(() => convert(1, "C", "m"), /cannot convert/);
});

test("tool schemas are draft-7 JSON schema from zod; bad calls become error text", async () => {
  assert.deepEqual(
    tools.map((t) => t.name),
    ["calculate", "convert"],
  );
  const conv = named(tools, "convert");
  assert.equal(conv.parameters["$schema"], "http://json-schema.org/draft-07/schema#");
  assert.deepEqual((conv.parameters["required"] as string[]).sort(), ["from_unit", "to_unit", "value"]);
  assert.equal(await runToolCall(tools, "calculate", '{"expression": "6 * 7"}', ctx), "42");
  assert.equal(await runToolCall(tools, "convert", { value: 2, from_unit: "ft", to_unit: "in" }, ctx), "24");
  assert.match(
    await runToolCall(tools, "convert", { value: 2, from_unit: "parsec", to_unit: "m" }, ctx),
    /^Error: invalid arguments/,
  );
  assert.match(await runToolCall(tools, "calculate", { expression: "1/0" }, ctx), /^Error: division by zero/);
});

test("generated tasks: seeded, every template, multi-step, and parseable back from the prompt", async () => {
  const a = await generateTasks(60, 0);
  const b = await generateTasks(60, 0);
  assert.deepEqual(a, b);
  assert.notDeepEqual(await generateTasks(6, 1), a.slice(0, 6));
  assert.deepEqual(new Set(a.map((t) => t.kind)), new Set(TEMPLATES.map((t) => t.kind)));
  assert.ok(a.some((t) => t.plan_calls >= 3));
  for (const t of a) {
    assert.equal(t.system_prompt, SYSTEM);
    const parsed = parseQuestion(t.prompt);
    assert.ok(parsed, `unparseable: ${t.prompt}`);
    assert.equal((await solve(parsed.template, parsed.params)).answer, t.answer);
  }
  const loaded = await toolMath.load({ size: 12, seed: 3 } as never);
  assert.equal(loaded.length, 12);
});

test("answer parsing and tolerance", () => {
  assert.equal(parseAnswer("<answer>1</answer> then <answer> 1,234.50 km</answer>"), 1234.5);
  assert.equal(parseAnswer("no tags 42"), null);
  assert.equal(parseAnswer("<answer>about −3.5</answer>"), -3.5);
  assert.ok(isCorrect(225.95, 225.9518976));
  assert.ok(!isCorrect(225.9, 225.9518976));
  assert.ok(isCorrect(2440944.88, 2440944.88189));
  assert.ok(!isCorrect(null, 1));
});

test("reward reads the last reply; tool_calls counts calls across the transcript", async () => {
  const [task] = await generateTasks(1, 0);
  const correct = named(toolMath.rewards, "correct");
  const metric = named(toolMath.metrics, "tool_calls");
  const right = `<answer>${task!.answer.toFixed(2)}</answer>`;
  const trace = traceView({
    lastReply: right,
    messages: [
      { role: "system", content: SYSTEM },
      { role: "user", content: task!.prompt },
      {
        role: "assistant",
        content: "",
        tool_calls: [
          { id: "a", name: "convert", arguments: "{}" },
          { id: "b", name: "calculate", arguments: "{}" },
        ],
      },
      { role: "tool", tool_call_id: "a", content: "1" },
      { role: "tool", tool_call_id: "b", content: "1" },
      { role: "assistant", content: right },
    ],
  });
  assert.equal(await correct.fn({ task: task!, trace, runtime: null }), 1);
  assert.equal(await metric.fn({ task: task!, trace, runtime: null }), 2);
  const wrong = traceView({ lastReply: `<answer>${task!.answer + 1}</answer>` });
  assert.equal(await correct.fn({ task: task!, trace: wrong, runtime: null }), 0);
});
