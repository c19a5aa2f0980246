/**
 * Dialect conformance with what the real agents send: the request bodies Codex (codex-acp
 * 2.6.0 → codex 0.166.0, Responses) and Claude Code (claude-agent-acp 0.67.0 → 2.1.232,
 * Messages) sent over a three-turn tool episode, captured by
 * scripts/capture-agent-requests.ts into test/fixtures/agents/. Each must parse, and parse to
 * what the model should see: namespace members as functions, hosted tools left out (or
 * refused), developer and mid-conversation system messages as system messages, reasoning that
 * round-trips exactly, calls mapped back to the names the client knows.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { ModelResponse } from "../../packages/core/src/clients/client.ts";
import { anthropicDialect } from "../../packages/core/src/interception/dialects/anthropic/index.ts";
import type { Dialect } from "../../packages/core/src/interception/dialects/dialect.ts";
import { responsesDialect } from "../../packages/core/src/interception/dialects/responses/index.ts";
import { contentText } from "../../packages/core/src/types.ts";

const FIXTURES = join(import.meta.dirname, "..", "fixtures", "agents");

function captured(agent: string): Record<string, any>[] {
  return JSON.parse(readFileSync(join(FIXTURES, `${agent}.requests.json`), "utf8")).map(
    (c: { body: Record<string, any> }) => c.body,
  );
}

const codex = captured("codex");
const codeMode = captured("codex_code_mode");
const claude = captured("claude_code");

function turn(message: ModelResponse["message"]): ModelResponse {
  return {
    id: "t",
    message,
    finishReason: "tool_calls",
    usage: { promptTokens: 1, completionTokens: 1 },
  } as ModelResponse;
}

test("codex: every captured request parses; the model sees functions, not the namespace or web_search", () => {
  assert.equal(codex.length, 3);
  for (const body of codex) {
    const r = responsesDialect.parse(body);
    const names = r.tools.map((t) => t.name);
    assert.ok(names.includes("exec_command"));
    assert.ok(names.includes("mcp__kv__lookup"), names.join(","));
    assert.ok(!names.includes("mcp__kv"));
    assert.deepEqual(r.droppedTools, ["web_search"]);
    assert.equal(r.tools.length, body.tools.length - 1, "web_search out, the namespace's one member in");
    assert.deepEqual(r.wireTools?.get("mcp__kv__lookup"), { name: "lookup", namespace: "mcp__kv" });
    // Two developer messages (base instructions, skills) and then the user turns.
    assert.deepEqual(
      r.messages.slice(0, 4).map((m) => m.role),
      ["system", "system", "user", "user"],
    );
  }
  assert.throws(
    () => responsesDialect.parse(codex[0]!, { refuseHostedTools: true }),
    /^InterceptionError: tools\[11\]\.type: the hosted tool "web_search"|tools\[11\]\.type: the hosted tool "web_search"/,
  );
});

test("codex: the echoed history folds back to the sampled turns (reasoning from encrypted_content, namespaced calls)", () => {
  const last = responsesDialect.parse(codex[2]!);
  const assistants = last.messages.filter((m) => m.role === "assistant");
  assert.equal(assistants.length, 2);
  assert.equal(assistants[0]!.reasoning_content, "First the shell.");
  assert.equal(assistants[0]!.tool_calls?.[0]?.name, "exec_command");
  assert.equal(assistants[1]!.reasoning_content, "The shell works; now the lookup.");
  assert.deepEqual(assistants[1]!.tool_calls?.[0], {
    id: "call_1",
    name: "mcp__kv__lookup",
    arguments: '{"key":"color"}',
  });
  const tools = last.messages.filter((m) => m.role === "tool").map((m) => contentText(m.content));
  assert.match(tools[0]!, /envroll-shell-7f3a/);
  assert.match(tools[1]!, /Output:blue-heron-42$/);
  // A client that rewrote the summary still sends the sampled text back.
  const edited = structuredClone(codex[2]!);
  const item = edited.input.find((i: { type: string }) => i.type === "reasoning");
  item.summary = [{ type: "summary_text", text: "(summary elided)" }];
  const again = responsesDialect.parse(edited).messages.find((m) => m.role === "assistant");
  assert.equal(again?.reasoning_content, "First the shell.");
});

test("responses answer: a namespaced call goes back as {namespace, name}; a custom tool as custom_tool_call", () => {
  const body: Record<string, any> = {
    ...codex[0]!,
    stream: false,
    tools: [
      ...codex[0]!.tools,
      { type: "custom", name: "apply_patch", description: "patch", format: { type: "text" } },
    ],
  };
  const request = responsesDialect.parse(body);
  const answer = responsesDialect.respond(
    turn({
      role: "assistant",
      content: "",
      reasoning_content: "think",
      tool_calls: [
        { id: "c1", name: "mcp__kv__lookup", arguments: '{"key":"color"}' },
        { id: "c2", name: "apply_patch", arguments: '{"input":"*** Begin Patch"}' },
      ],
    }),
    request,
    "m",
  ) as { output: Record<string, unknown>[] };
  const [reasoning, call, custom] = answer.output;
  assert.equal(reasoning!["type"], "reasoning");
  assert.match(String(reasoning!["encrypted_content"]), /^envroll\.v1:/);
  assert.deepEqual(
    {
      type: call!["type"],
      name: call!["name"],
      namespace: call!["namespace"],
      arguments: call!["arguments"],
    },
    { type: "function_call", name: "lookup", namespace: "mcp__kv", arguments: '{"key":"color"}' },
  );
  assert.deepEqual(
    { type: custom!["type"], name: custom!["name"], input: custom!["input"] },
    { type: "custom_tool_call", name: "apply_patch", input: "*** Begin Patch" },
  );
  // ... and the echo of both parses back to the calls as sampled.
  const echoed = responsesDialect.parse({
    model: "m",
    input: [...(body.input as unknown[]), ...answer.output],
  });
  const back = echoed.messages.at(-1)!;
  assert.equal(back.role, "assistant");
  assert.deepEqual(back.role === "assistant" ? back.tool_calls?.map((c) => c.name) : [], [
    "mcp__kv__lookup",
    "apply_patch",
  ]);
});

test("codex code mode: the tools of the additional_tools item are the model's tools; exec is a freeform function", () => {
  assert.equal(codeMode.length, 3);
  for (const body of codeMode) {
    assert.equal(body.input[0].type, "additional_tools");
    assert.equal(body.tools, undefined, "code mode sends no top-level tools");
    const r = responsesDialect.parse(body);
    const names = r.tools.map((t) => t.name);
    assert.ok(names.includes("functions__exec"), names.join(","));
    assert.ok(names.includes("collaboration__spawn_agent"), names.join(","));
    const exec = r.tools.find((t) => t.name === "functions__exec")!;
    assert.deepEqual(Object.keys((exec.parameters as { properties: object }).properties), ["input"]);
    assert.match(exec.description, /Input grammar \(lark\)/);
    assert.deepEqual(r.wireTools?.get("functions__exec"), {
      name: "exec",
      namespace: "functions",
      custom: true,
    });
    // The item itself is no message: developer messages, then the user turns.
    assert.deepEqual(
      r.messages.slice(0, 6).map((m) => m.role),
      ["system", "system", "system", "system", "user", "user"],
    );
  }
  const last = responsesDialect.parse(codeMode[2]!);
  const calls = last.messages.flatMap((m) => (m.role === "assistant" ? (m.tool_calls ?? []) : []));
  assert.deepEqual(
    calls.map((c) => [c.name, JSON.parse(c.arguments).input.split("(")[0]]),
    [
      ["functions__exec", "const r = await tools.exec_command"],
      ["functions__exec", "const r = await tools.mcp__kv__lookup"],
    ],
  );
  // A sampled exec call goes back as Codex's own custom_tool_call in the functions namespace.
  const answer = responsesDialect.respond(
    turn({
      role: "assistant",
      content: "",
      tool_calls: [{ id: "c1", name: "functions__exec", arguments: '{"input":"exit()"}' }],
    }),
    responsesDialect.parse({ ...codeMode[0]!, stream: false }),
    "m",
  ) as { output: Record<string, unknown>[] };
  assert.deepEqual(
    { ...answer.output[0], id: undefined, status: undefined },
    {
      type: "custom_tool_call",
      call_id: "c1",
      name: "exec",
      namespace: "functions",
      input: "exit()",
      id: undefined,
      status: undefined,
    },
  );
});

test("additional_tools after a model turn is a 400 naming the item (the template would show earlier turns tools they never had)", () => {
  const body = structuredClone(codeMode[1]!);
  body.input.push({ ...body.input[0], id: "at_late" });
  const at = body.input.length - 1;
  assert.throws(
    () => responsesDialect.parse(body),
    (e: Error) => e.message.startsWith(`input[${at}].type: additional_tools after a model turn`),
  );
  // Before the first model turn, anywhere: its tools join tools[] in order.
  const early = structuredClone(codeMode[0]!);
  early.tools = [{ type: "function", name: "first", parameters: { type: "object", properties: {} } }];
  assert.equal(responsesDialect.parse(early).tools[0]!.name, "first");
  early.input[0].tools[0].tools[0].type = "hologram";
  assert.throws(
    () => responsesDialect.parse(early),
    (e: Error) =>
      e.message.startsWith("input[0].tools[0].tools[0].type: a namespace holds function or custom tools"),
  );
});

test("claude code: every captured request parses; the system message inside messages is a system message", () => {
  assert.equal(claude.length, 3);
  for (const body of claude) {
    const r = anthropicDialect.parse(body);
    assert.equal(r.messages[0]!.role, "system", "top-level system blocks");
    assert.equal(r.messages[1]!.role, "user");
    assert.equal(r.messages[2]!.role, "system", "Claude Code's environment block");
    assert.match(contentText(r.messages[2]!.content), /agent types/);
    assert.ok(r.tools.some((t) => t.name === "Bash"));
    assert.ok(r.tools.some((t) => t.name === "mcp__kv__lookup"));
    assert.equal(r.tools.length, body.tools.length);
  }
  const last = anthropicDialect.parse(claude[2]!);
  const assistants = last.messages.filter((m) => m.role === "assistant");
  assert.deepEqual(
    assistants.map((m) => [m.reasoning_content, m.tool_calls?.[0]?.name]),
    [
      ["First the shell.", "Bash"],
      ["The shell works; now the lookup.", "mcp__kv__lookup"],
    ],
  );
  const tools = last.messages.filter((m) => m.role === "tool").map((m) => contentText(m.content));
  assert.deepEqual(tools, ["envroll-shell-7f3a", "blue-heron-42"]);
});

test("unknown fields and blocks are a 400 naming them, never a silent drop", () => {
  const cases: [Dialect, Record<string, unknown>, RegExp][] = [
    [
      anthropicDialect,
      { ...claude[0]!, speculative_decoding: true },
      /^speculative_decoding: unknown request field/,
    ],
    [responsesDialect, { ...codex[0]!, frobnicate: 1 }, /^frobnicate: unknown request field/],
    [
      anthropicDialect,
      { ...claude[0]!, messages: [{ role: "user", content: [{ type: "hologram", data: "x" }] }] },
      /^messages\[0\]\.content\[0\]\.type: unsupported content block "hologram"/,
    ],
    [
      responsesDialect,
      { ...codex[0]!, input: [{ type: "hologram_call", call_id: "x" }] },
      /^input\[0\]\.type: unsupported input item type "hologram_call"/,
    ],
    [anthropicDialect, { ...claude[0]!, mcp_servers: [{ url: "x" }] }, /^mcp_servers: not supported/],
  ];
  for (const [dialect, body, message] of cases)
    assert.throws(
      () => dialect.parse(body),
      (e: Error) => message.test(e.message),
    );
});
