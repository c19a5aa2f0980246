/**
 * Time to first delta: how long a streaming program waits for the first text of a turn when the
 * turn streams as it is sampled, against the replayed form (the finished turn written as one
 * burst of events, which is what every dialect stream did before). One request at a time
 * through each dialect, the TrainClient on the stand-in engine's streaming `/generate`, one
 * token every TOKEN_MS — a decode speed of a loaded real server — so the figure is latency,
 * not throughput. The replayed form is the same client with its delta listener taken away.
 */
import type { Client, ModelRequest } from "../packages/core/src/clients/client.ts";
import { TrainClient } from "../packages/core/src/clients/train.ts";
import { InterceptionServer } from "../packages/core/src/interception/server.ts";
import { createRenderer } from "../packages/core/src/renderers/index.ts";
import { SglangTransport } from "../packages/core/src/transport/index.ts";
import { startEngine } from "../packages/engine/src/index.ts";
import { bareSession } from "../test/runtime/helpers/session.ts";
import { type BenchOptions, type Figure, median, note } from "./lib/report.ts";

const TOKEN_MS = 5;

const WIRES = {
  chat: {
    path: "/v1/chat/completions",
    auth: (s: string) => ({ authorization: `Bearer ${s}` }),
    body: { model: "m", messages: [{ role: "user", content: "Tell me a story." }], stream: true },
  },
  responses: {
    path: "/v1/responses",
    auth: (s: string) => ({ authorization: `Bearer ${s}` }),
    body: { model: "m", input: "Tell me a story.", stream: true },
  },
  anthropic: {
    path: "/v1/messages",
    auth: (s: string) => ({ "x-api-key": s }),
    body: {
      model: "m",
      max_tokens: 2000,
      messages: [{ role: "user", content: "Tell me a story." }],
      stream: true,
    },
  },
} as const;

/** The first text of a turn in any dialect's stream. */
const TEXT = /"(?:content|delta|text)":"[^"]/;

/** The TrainClient with streaming taken away: the turn is answered once it is finished. */
function replayed(inner: Client): Client {
  return {
    kind: inner.kind,
    getResponse: ({ onDelta: _dropped, ...request }: ModelRequest) => inner.getResponse(request),
    abort: (id) => inner.abort(id),
    close: async () => {},
  };
}

/** Milliseconds to the first text event and to the stream's end, for one turn. */
async function oneTurn(server: InterceptionServer, client: Client, wire: (typeof WIRES)[keyof typeof WIRES]) {
  const reg = await server.register(bareSession(client).session);
  const t0 = performance.now();
  const res = await fetch(`${reg.baseUrl.replace(/\/v1$/, "")}${wire.path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...wire.auth(reg.secret) },
    body: JSON.stringify(wire.body),
  });
  if (res.status !== 200) throw new Error(`${wire.path}: ${res.status} ${await res.text()}`);
  let first = Number.NaN;
  let seen = "";
  const utf8 = new TextDecoder();
  for await (const bytes of res.body as AsyncIterable<Uint8Array>) {
    if (Number.isNaN(first)) {
      seen += utf8.decode(bytes, { stream: true });
      if (TEXT.test(seen)) first = performance.now() - t0;
    }
  }
  if (Number.isNaN(first)) throw new Error(`${wire.path}: no text in the stream`);
  return { first, total: performance.now() - t0 };
}

/** Per form (`<dialect>_<streamed|replayed>`): ms to the first text and to the end, per repetition. */
async function measure(o: BenchOptions, tokenMs: number, tokens: number) {
  const reply = `Once upon a time ${"there was a story that went on, ".repeat(60)}`;
  const engine = await startEngine({ tokenLatencyMs: tokenMs, policy: () => reply });
  const streamed = new TrainClient({
    renderer: createRenderer("qwen3"),
    transport: new SglangTransport({ baseUrl: engine.url, contextLength: 8192, maxResponseLength: tokens }),
  });
  const clients = { streamed, replayed: replayed(streamed) };
  const server = new InterceptionServer({ keepaliveMs: 0 });
  const ms: Record<string, { first: number[]; total: number[] }> = {};
  try {
    // Warm-up: the first turn loads the tokenizer tables, the renderer and node:http.
    for (const wire of Object.values(WIRES)) await oneTurn(server, streamed, wire);
    for (let rep = 0; rep < o.reps; rep++) {
      for (const [dialect, wire] of Object.entries(WIRES)) {
        for (const [form, client] of Object.entries(clients)) {
          const t = await oneTurn(server, client, wire);
          const key = `${dialect}_${form}`;
          ms[key] ??= { first: [], total: [] };
          const m = ms[key];
          m.first.push(t.first);
          m.total.push(t.total);
        }
      }
      note(
        `first-delta (${tokenMs} ms/token) rep ${rep + 1}: ${Object.entries(ms)
          .map(([k, v]) => `${k} ${v.first.at(-1)!.toFixed(0)}/${v.total.at(-1)!.toFixed(0)} ms`)
          .join(", ")}`,
      );
    }
  } finally {
    await server.close();
    await streamed.close();
    await engine.close();
  }
  return ms;
}

export async function firstDelta(o: BenchOptions): Promise<Figure[]> {
  const tokens = o.quick ? 100 : 300;
  const ms = await measure(o, TOKEN_MS, tokens);
  // With no token latency the turn is all cost: what streaming adds (SGLang's default cumulative
  // chunks, one per token, each repeating the turn so far; the family parser over the prefix).
  const cost = await measure(o, 0, tokens);
  const overhead = Object.keys(WIRES).map((d) => {
    const s = cost[`${d}_streamed`]!.total;
    const r = cost[`${d}_replayed`]!.total;
    const each = s.map((x, i) => x - r[i]!);
    return {
      name: `stream_overhead_ms_${d}`,
      value: median(each),
      unit: "ms/turn",
      reps: each,
      tokens,
      token_ms: 0,
    };
  });
  return [
    ...Object.entries(ms).map(([key, m]) => ({
      name: `first_delta_ms_${key}`,
      value: median(m.first),
      unit: "ms",
      reps: m.first,
      turn_ms: median(m.total),
      tokens,
      token_ms: TOKEN_MS,
    })),
    ...overhead,
  ];
}
