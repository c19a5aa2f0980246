/**
 * A resent request body parsed by its new part only (interception/resent-body.ts) is exactly
 * what JSON.parse makes of the whole: same values, same key order, same errors. Checked on the
 * shapes agents send (a growing history, then the tools), on every way the prefix can differ
 * (an edited earlier message, another tool set, another key order, whitespace), on JSON edge
 * cases (keys given twice, `__proto__`, integer keys, numbers that grow, escapes, non-ASCII),
 * and on random edits of real-looking bodies.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { jsonObjectOf, parseJsonText } from "../../packages/core/src/http/index.ts";
import { ResentBody } from "../../packages/core/src/interception/resent-body.ts";
import { mulberry32 } from "../../packages/core/src/random.ts";

type Outcome = { value: unknown; text: string } | { error: string; status: unknown };

function outcome(f: () => unknown): Outcome {
  try {
    const value = f();
    return { value, text: JSON.stringify(value) };
  } catch (e) {
    return { error: (e as Error).message, status: (e as { status?: unknown }).status };
  }
}

/** Parses `text` with `r` and checks it against the plain parse; returns how many elements were reused. */
function check(r: ResentBody, text: string): number {
  const bytes = Buffer.from(text);
  const fast = outcome(() => r.parse(bytes));
  const plain = outcome(() => jsonObjectOf(parseJsonText(bytes.toString("utf8"))));
  assert.deepStrictEqual(fast, plain, `body: ${text.slice(0, 200)}`);
  return r.reused;
}

const tools = [
  {
    type: "function",
    function: { name: "exec", description: "runs a command", parameters: { type: "object" } },
  },
];

function chatBody(messages: unknown[], extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ model: "m", messages, tools, max_tokens: 256, ...extra });
}

function history(turns: number): unknown[] {
  const out: unknown[] = [
    { role: "system", content: 'You are a coding agent. «ünïcode» 🚀 "quoted" \\ back\\slash\\' },
    { role: "user", content: "task" },
  ];
  for (let t = 0; t < turns; t++) {
    out.push({
      role: "assistant",
      content: `step ${t}`,
      tool_calls: [
        { id: `call_${t}`, type: "function", function: { name: "exec", arguments: `{"cmd":"ls ${t}"}` } },
      ],
    });
    out.push({
      role: "tool",
      tool_call_id: `call_${t}`,
      content: `out ${t}: ${"日本語 text\\n".repeat(t % 5)}`,
    });
  }
  return out;
}

test("a growing history reuses every earlier element and parses only the new ones", () => {
  const r = new ResentBody("messages");
  assert.equal(check(r, chatBody(history(0))), 0);
  for (let t = 1; t <= 30; t++) assert.equal(check(r, chatBody(history(t))), 2 + 2 * (t - 1));
  assert.deepEqual(r.counts, { resent: 30, full: 1 });
  // The unchanged tools are the objects parsed before (the tail's bytes are the same).
  const a = r.parse(Buffer.from(chatBody(history(31))));
  const b = r.parse(Buffer.from(chatBody(history(32))));
  assert.equal(a["tools"], b["tools"]);
  assert.equal(a["messages"][5], b["messages"][5]);
  assert.notEqual(a["messages"], b["messages"]);
});

test("an edited earlier message, another tool set or another head is parsed again from there", () => {
  const r = new ResentBody("messages");
  check(r, chatBody(history(10)));
  const edited = history(11);
  (edited[4] as { content: string }).content = "edited";
  assert.equal(check(r, chatBody(edited)), 4, "elements before the edit are reused");
  check(r, chatBody(history(12)));
  assert.equal(check(r, chatBody(history(13), { tools: [tools[0], tools[0]] })), 2 + 2 * 12);
  assert.equal(check(r, chatBody(history(14), { tools: [] })), 2 + 2 * 13);
  // Another key order: the head differs, everything is parsed.
  const reordered = JSON.stringify({ messages: history(15), model: "m", tools });
  assert.equal(check(r, reordered), 0);
  assert.equal(check(r, JSON.stringify({ model: "other", messages: history(16), tools })), 0);
  assert.equal(check(r, JSON.stringify({ model: "other", messages: history(17), tools })), 2 + 2 * 16);
  // A history cut short (a program starting over) and the same body twice.
  assert.equal(check(r, JSON.stringify({ model: "other", messages: history(3), tools })), 8);
  assert.equal(check(r, JSON.stringify({ model: "other", messages: history(3), tools })), 8);
});

test("whitespace, pretty printing and a streaming flag after the tools", () => {
  const r = new ResentBody("messages");
  for (let t = 0; t < 6; t++) check(r, JSON.stringify({ model: "m", messages: history(t), tools }, null, 2));
  assert.ok(r.reused > 0);
  for (let t = 6; t < 9; t++)
    check(
      r,
      ` \n{ "model" : "m" , "messages" : [ ${history(t)
        .map((m) => JSON.stringify(m))
        .join(" ,\n ")} ] , "stream" : true } \n`,
    );
  assert.ok(r.reused > 0);
});

test("JSON edge cases take the plain parse's value or error", () => {
  const r = new ResentBody("messages");
  const cases = [
    '{"model":"a","messages":[{"role":"user","content":"x"}],"model":"b"}',
    '{"model":"a","messages":[{"role":"user","content":"x"}],"messages":[]}',
    '{"messages":1,"messages":[{"role":"user","content":"x"}]}',
    '{"__proto__":{"x":1},"messages":[{"role":"user","content":"x"}]}',
    '{"model":"a","messages":[{"role":"user","content":"x"}],"__proto__":[]}',
    '{"2":"two","model":"a","1":"one","messages":[1,2],"0":"zero"}',
    '{"2":"two","model":"a","1":"one","messages":[1,23],"0":"zero"}',
    '{"2":"two","model":"a","1":"one","messages":[1,23,4],"0":"zero"}',
    '{"model":"a","messages":[1,23,4], }',
    '{"model":"a","messages":[1,23,4]} x',
    '{"model":"a","messages":[1,23,4],]}',
    '{"model":"a","messages":[1,23,4,]}',
    '{"model":"a","messages":[1,23,4,[}',
    '{"model":"a","messages":[1,23,4,"\\"]"]}',
    '{"model":"a","messages":[1,23,4,"\\"]",{"a":"\\\\"}]}',
    '{"model":"a","messages":[1,23,4,"\\"]",{"a":"\\\\"},"\\ud83d"]}',
    '{"model":"a","messages":"text"}',
    '{"model":"a","messages":[]}',
    '{"model":"a","messages":[],"tools":[]}',
    '{"model":"a","messages":[true,false,null,-1.5e3]}',
    '{"model":"a","messages":[true,false,null,-1.5e3,nul]}',
    '{"model":"a","\\u006dessages":[true],"messages":[1]}',
    "[]",
    "",
    "   ",
    "null",
    '{"messages":[1]}',
    '{"messages":[1,2]}',
  ];
  for (const c of cases) check(r, c);
  // Invalid UTF-8 decodes as the plain parse decodes it, reused or not.
  const bad = Buffer.concat([
    Buffer.from('{"messages":["a\xff'),
    Buffer.from([0xe2, 0x82]),
    Buffer.from('"'),
  ]);
  for (const tail of ["]}", ',"b"]}', ',"b",3]}']) {
    const bytes = Buffer.concat([bad, Buffer.from(tail)]);
    assert.deepStrictEqual(r.parse(bytes), JSON.parse(bytes.toString("utf8")));
  }
  assert.ok(r.reused > 0);
});

test("random edits of agent bodies: the same value or error as the plain parse", () => {
  const rand = mulberry32(7);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
  for (const key of ["messages", "input"]) {
    const r = new ResentBody(key);
    let text = JSON.stringify({ model: "m", [key]: history(4), tools });
    let reused = 0;
    for (let i = 0; i < 600; i++) {
      const op = rand();
      if (op < 0.45) {
        // Grow: a well-formed next turn.
        text = JSON.stringify({
          model: "m",
          [key]: history(3 + Math.floor(rand() * 12)),
          tools,
          ...(rand() < 0.3 ? { stream: true } : {}),
        });
      } else {
        // Corrupt or edit bytes anywhere (an earlier message, the head, the tail, the syntax).
        const at = Math.floor(rand() * text.length);
        const edit = pick(["", "x", '"', "\\", ",", "]", "}", "[", "{", " ", "1", "é", '\\"', ":"]);
        text = text.slice(0, at) + edit + text.slice(at + (rand() < 0.5 ? 1 : 0));
      }
      reused += check(r, text);
    }
    assert.ok(reused > 1000, `reused ${reused} elements over the run`);
  }
});
