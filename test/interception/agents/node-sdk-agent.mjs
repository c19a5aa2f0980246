/**
 * Tool-using agents on the official npm SDKs, one per mode (argv[2]): openai-chat,
 * openai-chat-stream, openai-responses, openai-responses-stream (npm `openai`),
 * anthropic, anthropic-stream (`@anthropic-ai/sdk`), agents, agents-stream (`@openai/agents`,
 * Responses model). Tools run through the interception server's tools route.
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";

const mode = process.argv[2];
const base = process.env.OPENAI_BASE_URL;
const key = process.env.OPENAI_API_KEY;
const prompt = JSON.parse(process.env.ENVROLL_PROMPT);
const tools = JSON.parse(process.env.ENVROLL_TOOLS);
const system = prompt.find((m) => m.role === "system")?.content;
const turns = prompt.filter((m) => m.role !== "system");

async function runTool(name, args) {
  const res = await fetch(`${base}/tools/${name}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: typeof args === "string" ? args : JSON.stringify(args),
  });
  return (await res.json()).content;
}

async function openaiChat(stream) {
  const client = new OpenAI({ baseURL: base, apiKey: key, maxRetries: 0 });
  const messages = [...prompt];
  for (;;) {
    const body = { model: "m", messages, tools };
    const completion = stream
      ? await client.chat.completions.stream(body).finalChatCompletion()
      : await client.chat.completions.create(body);
    const message = completion.choices[0].message;
    messages.push(message);
    if (!message.tool_calls?.length) return message.content;
    for (const c of message.tool_calls)
      messages.push({
        role: "tool",
        tool_call_id: c.id,
        content: await runTool(c.function.name, c.function.arguments),
      });
  }
}

async function openaiResponses(stream) {
  const client = new OpenAI({ baseURL: base, apiKey: key, maxRetries: 0 });
  const input = [...turns];
  const fnTools = tools.map((t) => ({ type: "function", ...t.function }));
  for (;;) {
    const body = {
      model: "m",
      input,
      tools: fnTools,
      store: false,
      ...(system ? { instructions: system } : {}),
    };
    const response = stream
      ? await client.responses.stream(body).finalResponse()
      : await client.responses.create(body);
    input.push(...response.output);
    const calls = response.output.filter((o) => o.type === "function_call");
    if (calls.length === 0) return response.output_text;
    for (const c of calls)
      input.push({
        type: "function_call_output",
        call_id: c.call_id,
        output: await runTool(c.name, c.arguments),
      });
  }
}

async function anthropic(stream) {
  const client = new Anthropic({ maxRetries: 0 });
  const messages = [...turns];
  const schemaTools = tools.map((t) => ({
    name: t.function.name,
    description: t.function.description,
    input_schema: t.function.parameters,
  }));
  for (;;) {
    const body = {
      model: "claude-x",
      max_tokens: 256,
      tools: schemaTools,
      messages,
      ...(system ? { system } : {}),
    };
    const message = stream
      ? await client.messages.stream(body).finalMessage()
      : await client.messages.create(body);
    messages.push({ role: "assistant", content: message.content });
    if (message.stop_reason !== "tool_use")
      return message.content
        .filter((b) => b.type === "text")
        .map((b) => b.text)
        .join("");
    const results = [];
    for (const b of message.content.filter((b) => b.type === "tool_use"))
      results.push({ type: "tool_result", tool_use_id: b.id, content: await runTool(b.name, b.input) });
    messages.push({ role: "user", content: results });
  }
}

async function agents(stream) {
  const { Agent, run, tool, setDefaultOpenAIClient, setTracingDisabled, setOpenAIAPI } = await import(
    "@openai/agents"
  );
  setTracingDisabled(true);
  setOpenAIAPI("responses");
  setDefaultOpenAIClient(new OpenAI({ baseURL: base, apiKey: key, maxRetries: 0 }));
  const agent = new Agent({
    name: "calc",
    instructions: system ?? "",
    model: "m",
    tools: tools.map((t) =>
      tool({
        name: t.function.name,
        description: t.function.description,
        parameters: {
          ...t.function.parameters,
          required: Object.keys(t.function.parameters.properties),
          additionalProperties: false,
        },
        strict: false,
        execute: (args) => runTool(t.function.name, args),
      }),
    ),
  });
  const input = turns.map((m) => ({ role: m.role, content: m.content }));
  const result = await run(agent, input, stream ? { stream: true } : {});
  if (stream) await result.completed;
  return result.finalOutput;
}

const modes = {
  "openai-chat": () => openaiChat(false),
  "openai-chat-stream": () => openaiChat(true),
  "openai-responses": () => openaiResponses(false),
  "openai-responses-stream": () => openaiResponses(true),
  anthropic: () => anthropic(false),
  "anthropic-stream": () => anthropic(true),
  agents: () => agents(false),
  "agents-stream": () => agents(true),
};

try {
  console.log(await modes[mode]());
} catch (e) {
  // A refusal ("rollout stopped: …") ends the program, as a stop condition should.
  console.error(`stopped: ${e?.status ?? ""} ${e?.message ?? e}`);
  process.exit(e?.status === 400 ? 2 : 1);
}
