/**
 * `tool_choice` per dialect (dialects/tool-choice.ts): `auto` offers the tools, `none` leaves them
 * out of the prompt, an allowed-tools list in auto mode offers only those, and whatever forces a
 * call (`required`, Anthropic `any`, a named tool) is a 400 naming the field — the model samples
 * freely, so such a promise could not be kept. Malformed choices name their field too.
 */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { InterceptionServer } from "../../packages/core/src/interception/server.ts";
import { ScriptedClient, say } from "../runtime/helpers/scripted-client.ts";
import { bareSession } from "../runtime/helpers/session.ts";

const server = new InterceptionServer({ keepaliveMs: 0 });
after(() => server.close());

const schema = { type: "object", properties: {} };
const WIRES = {
  chat: {
    path: "/v1/chat/completions",
    auth: (s: string) => ({ authorization: `Bearer ${s}` }),
    body: (choice: unknown) => ({
      model: "m",
      messages: [{ role: "user", content: "q" }],
      tools: ["a", "b"].map((name) => ({ type: "function", function: { name, parameters: schema } })),
      ...(choice === undefined ? {} : { tool_choice: choice }),
    }),
  },
  responses: {
    path: "/v1/responses",
    auth: (s: string) => ({ authorization: `Bearer ${s}` }),
    body: (choice: unknown) => ({
      model: "m",
      input: "q",
      tools: ["a", "b"].map((name) => ({ type: "function", name, parameters: schema })),
      ...(choice === undefined ? {} : { tool_choice: choice }),
    }),
  },
  anthropic: {
    path: "/v1/messages",
    auth: (s: string) => ({ "x-api-key": s }),
    body: (choice: unknown) => ({
      model: "m",
      max_tokens: 20,
      messages: [{ role: "user", content: "q" }],
      tools: ["a", "b"].map((name) => ({ name, input_schema: schema })),
      ...(choice === undefined ? {} : { tool_choice: choice }),
    }),
  },
} as const;

async function post(dialect: keyof typeof WIRES, choice: unknown) {
  const client = new ScriptedClient(() => say("ok"));
  const reg = await server.register(bareSession(client).session);
  const wire = WIRES[dialect];
  const res = await fetch(`${reg.baseUrl.replace(/\/v1$/, "")}${wire.path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...wire.auth(reg.secret) },
    body: JSON.stringify(wire.body(choice)),
  });
  const text = await res.text();
  const offered = client.requests[0]?.tools.map((t) => t.name) ?? null;
  const message: string = res.status === 200 ? "" : (JSON.parse(text).error.message as string);
  return { status: res.status, offered, message };
}

const CASES: Record<
  keyof typeof WIRES,
  { auto: unknown[]; none: unknown; allowed?: unknown; forced: unknown[]; bad: [unknown, RegExp][] }
> = {
  chat: {
    auto: [undefined, "auto"],
    none: "none",
    allowed: {
      type: "allowed_tools",
      allowed_tools: { mode: "auto", tools: [{ type: "function", function: { name: "b" } }] },
    },
    forced: [
      "required",
      { type: "function", function: { name: "a" } },
      {
        type: "allowed_tools",
        allowed_tools: { mode: "required", tools: [{ type: "function", function: { name: "a" } }] },
      },
    ],
    bad: [
      ["sometimes", /^tool_choice: expected "auto", "none", "required"/],
      [{ type: "function" }, /^tool_choice\.function: expected an object/],
      [
        {
          type: "allowed_tools",
          allowed_tools: { mode: "auto", tools: [{ type: "function", function: { name: "z" } }] },
        },
        /^tool_choice: allows "z", which is not among the tools/,
      ],
    ],
  },
  responses: {
    auto: [undefined, "auto"],
    none: "none",
    allowed: { type: "allowed_tools", mode: "auto", tools: [{ type: "function", name: "b" }] },
    forced: ["required", { type: "function", name: "a" }, { type: "file_search" }],
    bad: [
      [
        { type: "allowed_tools", mode: "maybe", tools: [] },
        /^tool_choice\.mode: expected "auto" or "required"/,
      ],
    ],
  },
  anthropic: {
    auto: [undefined, { type: "auto" }, { type: "auto", disable_parallel_tool_use: true }],
    none: { type: "none" },
    forced: [{ type: "any" }, { type: "tool", name: "a" }],
    bad: [
      ["auto", /^tool_choice: expected an object/],
      [{ type: "tool" }, /^tool_choice\.name: expected a string/],
      [{ type: "sometimes" }, /^tool_choice\.type: expected auto, any, tool or none/],
    ],
  },
};

for (const [dialect, c] of Object.entries(CASES) as [keyof typeof WIRES, (typeof CASES)["chat"]][]) {
  test(`${dialect}: tool_choice auto offers the tools, none leaves them out, forcing is refused naming the field`, async () => {
    for (const choice of c.auto)
      assert.deepEqual(await post(dialect, choice), { status: 200, offered: ["a", "b"], message: "" });
    assert.deepEqual(await post(dialect, c.none), { status: 200, offered: [], message: "" });
    if (c.allowed)
      assert.deepEqual(await post(dialect, c.allowed), { status: 200, offered: ["b"], message: "" });
    for (const choice of c.forced) {
      const r = await post(dialect, choice);
      assert.equal(r.status, 400, JSON.stringify(choice));
      assert.equal(r.offered, null, "no turn was sampled");
      assert.match(r.message, /^tool_choice: .* cannot be enforced here: the model samples freely/);
    }
    for (const [choice, message] of c.bad) {
      const r = await post(dialect, choice);
      assert.equal(r.status, 400, JSON.stringify(choice));
      assert.match(r.message, message);
    }
  });
}
