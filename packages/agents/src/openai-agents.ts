/**
 * An agent on the OpenAI Agents SDK (`@openai/agents`), run by envroll as the `openai-agents`
 * harness and usable as a template for your own. Everything comes from the environment envroll
 * sets (see README "Bring your own agent"):
 *
 * - `OPENAI_BASE_URL`, `OPENAI_API_KEY` — the interception endpoint and the rollout's secret;
 * - `ENVROLL_MODEL` — the model name to send;
 * - `ENVROLL_PROMPT` — the opening messages (chat wire JSON): a system message becomes the
 *   agent's instructions, the rest its input;
 * - `ENVROLL_MCP_CONFIG` — `{"mcpServers": {name: {url, headers}}}`: each server is connected
 *   with the SDK's streamable-HTTP MCP client and its tools are offered as `<server>_<tool>`
 *   (V1's names; the SDK's own prefixing would be `mcp_<server>__<tool>`).
 *
 * It speaks chat completions (the TrainClient's dialect) with SDK retries off: a re-sent turn
 * would be sampled again and fork the trace. envroll enforces turn limits by refusing a request
 * (HTTP 400 `rollout stopped: …`), which ends the run like any other error.
 */
import {
  Agent,
  type AgentInputItem,
  MCPServerStreamableHttp,
  mcpToFunctionTool,
  OpenAIChatCompletionsModel,
  run,
  setTracingDisabled,
  type Tool,
} from "@openai/agents";
import OpenAI from "openai";

interface WireMessage {
  role: string;
  content?: unknown;
}

interface McpConfig {
  mcpServers?: Record<string, { url: string; headers?: Record<string, string> }>;
}

function env(name: string): string {
  const v = process.env[name];
  if (v === undefined || v === "")
    throw new Error(`${name} is not set (run me as envroll's openai-agents harness)`);
  return v;
}

function text(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((p) => (p?.type === "text" ? String(p.text) : "")).join("");
  return "";
}

async function main(): Promise<void> {
  setTracingDisabled(true);
  const client = new OpenAI({
    baseURL: env("OPENAI_BASE_URL"),
    apiKey: env("OPENAI_API_KEY"),
    maxRetries: 0,
    timeout: 1_800_000,
  });
  const prompt = JSON.parse(env("ENVROLL_PROMPT")) as WireMessage[];
  const system = prompt.filter((m) => m.role === "system").map((m) => text(m.content));
  const input: AgentInputItem[] = prompt
    .filter((m) => m.role !== "system")
    .map(
      (m) =>
        ({ role: m.role === "assistant" ? "assistant" : "user", content: text(m.content) }) as AgentInputItem,
    );
  const config = JSON.parse(process.env["ENVROLL_MCP_CONFIG"] || "{}") as McpConfig;
  const servers = Object.entries(config.mcpServers ?? {}).map(
    ([name, s]) =>
      new MCPServerStreamableHttp({
        name,
        url: s.url,
        requestInit: { headers: s.headers ?? {} },
        cacheToolsList: true,
      }),
  );
  try {
    await Promise.all(servers.map((s) => s.connect()));
    const tools: Tool[] = [];
    for (const server of servers)
      for (const t of await server.listTools())
        tools.push(mcpToFunctionTool(t, server, false, { toolNameOverride: `${server.name}_${t.name}` }));
    const agent = new Agent({
      name: "envroll-agent",
      instructions: system.join("\n\n"),
      model: new OpenAIChatCompletionsModel(client, env("ENVROLL_MODEL")),
      tools,
    });
    const result = await run(agent, input, { maxTurns: 1_000_000 });
    process.stdout.write(`${String(result.finalOutput ?? "")}\n`);
  } finally {
    await Promise.allSettled(servers.map((s) => s.close()));
  }
}

main().catch((e) => {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
