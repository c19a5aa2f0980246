/**
 * Per-turn overhead of each interception dialect against chat, and of streaming against JSON:
 * the same 6-turn tool conversation posted to `/v1/chat/completions`, `/v1/responses` and
 * `/v1/messages` (± `stream`), 16 in flight, against an instant client, so the figure is the
 * server's own cost per turn (HTTP, parse, session, trace, answer). Modes alternate within each
 * repetition so load changes hit all of them alike; ratios are per repetition, then the median.
 */
import { Pool } from "undici";
import type { Client, ModelResponse } from "../packages/core/src/clients/client.ts";
import { InterceptionServer } from "../packages/core/src/interception/server.ts";
import { bareSession } from "../test/runtime/helpers/session.ts";
import { type BenchOptions, type Figure, median, note } from "./lib/report.ts";

const TURNS = 6;
const SESSIONS = 32;
const IN_FLIGHT = 16;

const reply: ModelResponse = {
  id: "bench",
  model: "bench",
  message: {
    role: "assistant",
    content: "Checking the next step.",
    reasoning_content: "The log says the step passed; run the next one.",
    tool_calls: [{ id: "call_b", name: "step", arguments: '{"n": 3}' }],
  },
  finishReason: "tool_calls",
  usage: { promptTokens: 900, completionTokens: 40 },
  tokens: null,
};

const instant: Client = {
  kind: "eval",
  getResponse: async () => reply,
  abort: async () => {},
  close: async () => {},
};

const tool = {
  name: "step",
  description: "Run one step.",
  parameters: { type: "object", properties: { n: { type: "integer" } } },
};
const log = (i: number) => `step ${i} done: checked ${i * 3} items.\nlog: ok ok ok ok ok ok ok ok`;
const args = (i: number) => `{"n": ${i}}`;

/** The same conversation in each wire format (a system prompt, the task, then TURNS tool rounds). */
function bodies(stream: boolean): Record<string, [string, Record<string, unknown>]> {
  const chat: unknown[] = [
    { role: "system", content: "You are a careful operator." },
    { role: "user", content: "Walk through the steps." },
  ];
  const items: unknown[] = [{ role: "user", content: "Walk through the steps." }];
  const anthropic: unknown[] = [{ role: "user", content: "Walk through the steps." }];
  for (let i = 1; i <= TURNS; i++) {
    const id = `call_${i}`;
    chat.push(
      {
        role: "assistant",
        content: "Next.",
        reasoning_content: `Step ${i}.`,
        tool_calls: [{ id, type: "function", function: { name: "step", arguments: args(i) } }],
      },
      { role: "tool", tool_call_id: id, content: log(i) },
    );
    items.push(
      { type: "reasoning", id: `rs_${i}`, summary: [{ type: "summary_text", text: `Step ${i}.` }] },
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "Next." }] },
      { type: "function_call", call_id: id, name: "step", arguments: args(i) },
      { type: "function_call_output", call_id: id, output: log(i) },
    );
    anthropic.push(
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: `Step ${i}.`, signature: "s" },
          { type: "text", text: "Next." },
          { type: "tool_use", id, name: "step", input: { n: i } },
        ],
      },
      { role: "user", content: [{ type: "tool_result", tool_use_id: id, content: log(i) }] },
    );
  }
  return {
    chat: [
      "/v1/chat/completions",
      { model: "m", messages: chat, tools: [{ type: "function", function: tool }], stream },
    ],
    responses: [
      "/v1/responses",
      {
        model: "m",
        instructions: "You are a careful operator.",
        input: items,
        tools: [{ type: "function", ...tool }],
        stream,
      },
    ],
    anthropic: [
      "/v1/messages",
      {
        model: "m",
        max_tokens: 256,
        system: "You are a careful operator.",
        messages: anthropic,
        tools: [{ name: tool.name, description: tool.description, input_schema: tool.parameters }],
        stream,
      },
    ],
  };
}

async function sessions(server: InterceptionServer) {
  return Promise.all(
    Array.from({ length: SESSIONS }, async () => server.register(bareSession(instant).session)),
  );
}

/** Microseconds per turn for `count` requests of one mode, IN_FLIGHT at a time. */
async function measure(
  pool: Pool,
  regs: Awaited<ReturnType<typeof sessions>>,
  path: string,
  body: string,
  count: number,
): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < count) {
        const reg = regs[next++ % regs.length]!;
        const res = await pool.request({
          method: "POST",
          path,
          headers: {
            "content-type": "application/json",
            authorization: `Bearer ${reg.secret}`,
            "x-api-key": reg.secret,
          },
          body,
        });
        const text = await res.body.text();
        if (res.statusCode !== 200) throw new Error(`${path}: ${res.statusCode} ${text}`);
      }
    }),
  );
  return ((performance.now() - t0) * 1000) / count;
}

export async function dialects(o: BenchOptions): Promise<Figure[]> {
  const count = o.quick ? 400 : 1500;
  const modes = [false, true].flatMap((stream) =>
    Object.entries(bodies(stream)).map(([name, [path, body]]) => ({
      name: stream ? `${name}+stream` : name,
      path,
      body: JSON.stringify(body),
    })),
  );
  const us: Record<string, number[]> = Object.fromEntries(modes.map((m) => [m.name, []]));
  const server = new InterceptionServer();
  const regs = await sessions(server);
  const pool = new Pool(regs[0]!.baseUrl.replace(/\/v1$/, ""), { connections: IN_FLIGHT });
  // Two repetitions at least, in opposite orders, so neither end of the order is favoured.
  const reps = Math.max(2, o.reps);
  try {
    for (const m of modes) await measure(pool, regs, m.path, m.body, 300); // warm-up
    for (let rep = 0; rep < reps; rep++) {
      const order = rep % 2 ? [...modes].reverse() : modes;
      for (const m of order) us[m.name]!.push(await measure(pool, regs, m.path, m.body, count));
      note(
        `dialects rep ${rep + 1}: ${modes.map((m) => `${m.name} ${us[m.name]!.at(-1)!.toFixed(0)} µs`).join(", ")}`,
      );
    }
  } finally {
    await pool.close();
    await server.close();
  }
  const ratio = (a: string, b: string) => median(us[a]!.map((x, i) => x / us[b]![i]!));
  return [
    ...modes.map((m) => ({
      name: `turn_us_${m.name.replace("+", "_")}`,
      value: median(us[m.name]!),
      unit: "µs/turn",
      reps: us[m.name]!,
      turns_in_history: TURNS,
      in_flight: IN_FLIGHT,
      requests_per_rep: count,
    })),
    ...["responses", "anthropic"].map((d) => ({
      name: `${d}_over_chat`,
      value: ratio(d, "chat"),
      unit: "ratio",
    })),
    ...["chat", "responses", "anthropic"].map((d) => ({
      name: `${d}_stream_over_json`,
      value: ratio(`${d}+stream`, d),
      unit: "ratio",
    })),
  ];
}
