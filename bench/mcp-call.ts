/**
 * One tool call's round trip over MCP (the SDK's streamable-HTTP client → the interception
 * server's /mcp/<server> → the task's in-process tool) against the same call made in-process by
 * a built-in harness (toolbox → tool). Sequential calls, after a warm-up, median of 3 runs.
 *
 *   node --import tsx bench/mcp-call.ts [--calls 500]
 *
 * Prints one JSON line per figure (µs per call, and their ratio).
 */

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Client as ClientInterface } from "../packages/core/src/clients/client.ts";
import { InterceptionServer } from "../packages/core/src/interception/server.ts";
import { SubprocessRuntime } from "../packages/core/src/runtimes/subprocess.ts";
import { defineTaskset } from "../packages/core/src/task.ts";
import { calculateTool } from "../packages/core/src/tasksets/tool-math/tools.ts";
import type { TaskData } from "../packages/core/src/types.ts";
import { bareSession, bareWiring } from "../test/runtime/helpers/session.ts";
import { median } from "./lib/report.ts";

const arg = process.argv.indexOf("--calls");
const CALLS = arg > 0 ? Number(process.argv[arg + 1]) : 500;
const taskset = defineTaskset({ id: "bench", load: () => [], toolPrefix: "math", tools: [calculateTool] });
const task = { idx: 0, prompt: "" };
const args = { expression: "(2 + 3) * 4.5" };

async function timed(fn: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 50; i++) await fn();
  const t0 = performance.now();
  for (let i = 0; i < CALLS; i++) await fn();
  return ((performance.now() - t0) * 1000) / CALLS;
}

const runtime = new SubprocessRuntime();
await runtime.start();
const server = new InterceptionServer();
const unused: ClientInterface = {
  kind: "eval",
  getResponse: () => Promise.reject(new Error("unused")),
  abort: async () => {},
  close: async () => {},
};
const { session, trace, signal } = bareSession<TaskData>(unused, {
  task,
  handlers: taskset,
  runtime,
  tools: [calculateTool],
});
const wiring = bareWiring(taskset, task, runtime, server, signal);
const toolbox = await wiring.bind(session, [calculateTool], () => ({ task, trace, runtime, signal }), []);
const ep = await wiring.endpoint();
const client = new Client({ name: "bench", version: "1" });
await client.connect(
  new StreamableHTTPClientTransport(new URL(`${ep.origin}/mcp/math`), {
    requestInit: { headers: { Authorization: `Bearer ${ep.secret}` } },
  }),
);
const inProcess: number[] = [];
const overMcp: number[] = [];
for (let rep = 0; rep < 3; rep++) {
  inProcess.push(await timed(() => toolbox.callQualified("math_calculate", args)));
  overMcp.push(await timed(() => client.callTool({ name: "calculate", arguments: args })));
  (trace.info["tool_calls"] as unknown[]).length = 0;
}
const a = median(inProcess);
const b = median(overMcp);
const line = (name: string, value: number, unit: string) =>
  console.log(JSON.stringify({ name, value: Math.round(value * 10) / 10, unit, calls: CALLS, reps: 3 }));
line("tool_call_in_process_us", a, "µs/call");
line("tool_call_mcp_roundtrip_us", b, "µs/call");
line("mcp_over_in_process", b / a, "x");
await client.close();
await wiring.close();
await server.close();
await runtime.stop();
