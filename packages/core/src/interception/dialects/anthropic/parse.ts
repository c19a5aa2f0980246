/**
 * Anthropic Messages request → envroll messages. `system` is the system message; an assistant
 * turn's `thinking` blocks are its `reasoning_content`, its `text` blocks its content and its
 * `tool_use` blocks its tool calls; a user turn's `tool_result` blocks become tool messages, in
 * order, and its other blocks one user message after them (where the API puts the next input).
 */
import type { Sampling } from "../../../clients/client.ts";
import { getOrCompute } from "../../../memo.ts";
import { pyJsonDumps } from "../../../text/py-json.ts";
import type { AssistantMessage, Content, Message, Tool, ToolCall } from "../../../types.ts";
import type { DialectRequest, ParseOptions } from "../dialect.ts";
import {
  array,
  checkFields,
  fail,
  functionTool,
  type Json,
  object,
  optionalNumber,
  string,
} from "../fields.ts";
import { anthropicToolChoice, offeredTools } from "../tool-choice.ts";
import { ANTHROPIC_FIELDS } from "./request-fields.ts";

type Part = Exclude<Content, string>[number];

export interface AnthropicBody {
  messages: Message[];
  tools: Tool[];
  droppedTools: string[];
}

/**
 * The conversation and tools of a Messages (or count_tokens) body. A `system` message inside
 * `messages` (Claude Code puts its environment block there) is a system message where it
 * stands; server tools (Anthropic runs them; they are not here) are left out and listed.
 */
export function parseAnthropicConversation(body: Json, options: ParseOptions = {}): AnthropicBody {
  // count_tokens bodies are checked against the same list: they are a Messages body to count.
  checkFields(body, ANTHROPIC_FIELDS, "it needs Anthropic's servers");
  const messages: Message[] = [];
  const system = body["system"];
  if (system != null) {
    const content = blocksContent(system, "system");
    if (content !== "" && !(Array.isArray(content) && content.length === 0))
      messages.push({ role: "system", content });
  }
  const translated = options.translated as WeakMap<object, Message[]> | undefined;
  array(body["messages"], "messages").forEach((raw, i) => {
    const path = `messages[${i}]`;
    const m = object(raw, path);
    const list = translated ? getOrCompute(translated, m, () => wireMessage(m, path)) : wireMessage(m, path);
    for (const message of list) messages.push(message);
  });
  const { tools, droppedTools } = parseTools(body["tools"], options.refuseHostedTools === true);
  return {
    messages,
    tools: offeredTools(anthropicToolChoice(body["tool_choice"]), tools, "tool_choice"),
    droppedTools,
  };
}

export function parseAnthropicRequest(body: Json, options: ParseOptions = {}): DialectRequest {
  const { messages, tools, droppedTools } = parseAnthropicConversation(body, options);
  // As Verifiers: the program's temperature and top_p never reach the model; its token cap
  // (required by the API), stop sequences and top_k do, under the config's sampling.
  const sampling: Sampling = {};
  const maxTokens = optionalNumber(body["max_tokens"], "max_tokens");
  if (maxTokens !== undefined) sampling.max_tokens = maxTokens;
  const topK = optionalNumber(body["top_k"], "top_k");
  if (topK !== undefined) sampling.top_k = topK;
  if (body["stop_sequences"] != null)
    sampling.stop = array(body["stop_sequences"], "stop_sequences").map((s, i) =>
      string(s, `stop_sequences[${i}]`),
    );
  return {
    messages,
    tools,
    sampling,
    stream: body["stream"] === true,
    model: typeof body["model"] === "string" ? body["model"] : null,
    echo: {},
    droppedTools,
  };
}

/** One wire message → the messages it stands for (a user turn's tool results are several). */
function wireMessage(m: Json, path: string): Message[] {
  if (m["role"] === "assistant") return [assistantMessage(m["content"], `${path}.content`)];
  if (m["role"] === "user") return userMessages(m["content"], `${path}.content`);
  if (m["role"] === "system")
    return [{ role: "system", content: blocksContent(m["content"], `${path}.content`) }];
  return fail(`${path}.role`, `expected user, assistant or system, got ${JSON.stringify(m["role"])}`);
}

/** Anthropic's server tools are versioned types (`web_search_20250305`, `code_execution_…`). */
const SERVER_TOOL =
  /^(web_search|web_fetch|code_execution|bash|text_editor|computer|memory|tool_search_tool_[a-z]+|mcp_toolset)(_\d{8})?$/;

function parseTools(raw: unknown, refuseHosted: boolean): { tools: Tool[]; droppedTools: string[] } {
  const out = { tools: [] as Tool[], droppedTools: [] as string[] };
  if (raw == null) return out;
  array(raw, "tools").forEach((t, i) => {
    const path = `tools[${i}]`;
    const tool = object(t, path);
    const type = tool["type"];
    if (typeof type === "string" && type !== "custom" && SERVER_TOOL.test(type)) {
      if (refuseHosted)
        fail(
          `${path}.type`,
          `the server tool ${JSON.stringify(type)} runs on Anthropic's servers, which this environment does not have`,
        );
      out.droppedTools.push(type);
      return;
    }
    if (tool["input_schema"] == null || (type != null && type !== "custom"))
      fail(path, `only custom tools with an input_schema are supported, got type ${JSON.stringify(type)}`);
    out.tools.push(functionTool(tool["name"], tool["description"], tool["input_schema"], path));
  });
  return out;
}

function blocks(raw: unknown, path: string): Json[] {
  if (typeof raw === "string") return [{ type: "text", text: raw }];
  return array(raw, path).map((b, j) => object(b, `${path}[${j}]`));
}

function assistantMessage(raw: unknown, path: string): AssistantMessage {
  let content = "";
  let reasoning: string | undefined;
  const calls: ToolCall[] = [];
  blocks(raw, path).forEach((b, j) => {
    const at = `${path}[${j}]`;
    if (b["type"] === "text") content += string(b["text"], `${at}.text`);
    else if (b["type"] === "thinking")
      reasoning = (reasoning ?? "") + string(b["thinking"], `${at}.thinking`);
    else if (b["type"] === "redacted_thinking") {
      // Opaque to anything but Anthropic's servers: there is no text for the model to see.
    } else if (b["type"] === "tool_use")
      calls.push({
        id: string(b["id"], `${at}.id`),
        name: string(b["name"], `${at}.name`),
        // The spelling the chat templates use for dict arguments (Python json.dumps).
        arguments: pyJsonDumps(b["input"] == null ? {} : object(b["input"], `${at}.input`)),
      });
    else fail(`${at}.type`, `unsupported assistant content block ${JSON.stringify(b["type"])}`);
  });
  const message: AssistantMessage = { role: "assistant", content };
  if (reasoning !== undefined) message.reasoning_content = reasoning;
  if (calls.length > 0) message.tool_calls = calls;
  return message;
}

function userMessages(raw: unknown, path: string): Message[] {
  const out: Message[] = [];
  const rest: Json[] = [];
  blocks(raw, path).forEach((b, j) => {
    if (b["type"] !== "tool_result") {
      rest.push(b);
      return;
    }
    const at = `${path}[${j}]`;
    out.push({
      role: "tool",
      tool_call_id: string(b["tool_use_id"], `${at}.tool_use_id`),
      content: b["content"] == null ? "" : blocksContent(b["content"], `${at}.content`),
    });
  });
  if (rest.length > 0 || out.length === 0) {
    out.push({ role: "user", content: typeof raw === "string" ? raw : single(partsOf(rest, path)) });
  }
  return out;
}

/** A string, or text/image blocks as parts (a lone text block stays a plain string). */
function blocksContent(raw: unknown, path: string): Content {
  if (typeof raw === "string") return raw;
  return single(partsOf(blocks(raw, path), path));
}

function single(parts: Part[]): Content {
  return parts.length === 1 && parts[0]!.type === "text" ? parts[0]!.text : parts;
}

function partsOf(list: Json[], path: string): Part[] {
  return list.map((b, j) => {
    const at = `${path}[${j}]`;
    if (b["type"] === "text") return { type: "text", text: string(b["text"], `${at}.text`) };
    if (b["type"] === "image") {
      const src = object(b["source"], `${at}.source`);
      const url =
        src["type"] === "url"
          ? string(src["url"], `${at}.source.url`)
          : `data:${string(src["media_type"], `${at}.source.media_type`)};base64,${string(src["data"], `${at}.source.data`)}`;
      return { type: "image_url", image_url: { url } };
    }
    return fail(`${at}.type`, `unsupported content block ${JSON.stringify(b["type"])}`);
  });
}
