/**
 * Responses request → envroll messages. `instructions` is the system message; `input` is a
 * string (one user message) or a list of items, in which each run of assistant-side items
 * (`reasoning`, `function_call`, `custom_tool_call`, assistant `message`) folds into one
 * assistant message — the shape one sampled turn has — and `function_call_output` /
 * `custom_tool_call_output` items become tool messages; `developer` and `system` messages are
 * system messages; `additional_tools` items add to `tools`. Nothing is stored server-side, so `previous_response_id` and stored-item
 * references are refused. Every top-level field is either used or ignored on purpose (see
 * request-fields.ts); any other is a 400 naming it.
 */
import type { Sampling } from "../../../clients/client.ts";
import { getOrCompute } from "../../../memo.ts";
import type { AssistantMessage, Content, Message, ToolCall } from "../../../types.ts";
import type { DialectRequest, ParseOptions } from "../dialect.ts";
import { array, fail, isObject, type Json, object, optionalString, refuseIfSet, string } from "../fields.ts";
import { offeredTools, responsesToolChoice } from "../tool-choice.ts";
import { readReasoning } from "./reasoning.ts";
import { checkResponsesFields } from "./request-fields.ts";
import { CUSTOM_INPUT, namespacedName, parseResponsesTools, type ToolSource } from "./tools.ts";

const NOT_STORED = "envroll stores no responses; send the whole conversation in `input` (store: false)";

export function parseResponsesRequest(body: Json, options: ParseOptions = {}): DialectRequest {
  checkResponsesFields(body);
  refuseIfSet(body, "previous_response_id", NOT_STORED);
  refuseIfSet(body, "conversation", NOT_STORED);
  refuseIfSet(body, "background", "every response is produced in the request that asks for it");
  const messages: Message[] = [];
  const instructions = optionalString(body["instructions"], "instructions");
  if (instructions) messages.push({ role: "system", content: instructions });
  const input = body["input"];
  const toolSources: ToolSource[] = [{ raw: body["tools"], path: "tools" }];
  if (typeof input === "string") messages.push({ role: "user", content: input });
  else if (input != null)
    messages.push(...itemsToMessages(array(input, "input"), toolSources, options.translated));
  const tools = parseResponsesTools(toolSources, options.refuseHostedTools === true);
  const offered = offeredTools(
    responsesToolChoice(body["tool_choice"]),
    tools.tools,
    "tool_choice",
    (t) => tools.wire.get(t.name)?.name ?? t.name,
  );
  return {
    messages,
    tools: offered,
    wireTools: tools.wire,
    droppedTools: tools.dropped,
    // As Verifiers: the program's temperature, top_p and token cap never reach the model (the
    // config's sampling is the whole of it for this dialect).
    sampling: {} satisfies Sampling,
    stream: body["stream"] === true,
    model: typeof body["model"] === "string" ? body["model"] : null,
    echo: {
      instructions: instructions ?? null,
      tools: body["tools"] ?? [],
      tool_choice: body["tool_choice"] ?? "auto",
      parallel_tool_calls: body["parallel_tool_calls"] ?? true,
      max_output_tokens: body["max_output_tokens"] ?? null,
      temperature: body["temperature"] ?? null,
      top_p: body["top_p"] ?? null,
      store: body["store"] ?? false,
      metadata: body["metadata"] ?? {},
      text: body["text"] ?? { format: { type: "text" } },
      reasoning: body["reasoning"] ?? { effort: null, summary: null },
      user: body["user"] ?? null,
      ...(body["prompt_cache_key"] != null ? { prompt_cache_key: body["prompt_cache_key"] } : {}),
    },
  };
}

const ASSISTANT_ITEMS = new Set(["reasoning", "function_call", "custom_tool_call"]);

function isAssistantSide(item: Json): boolean {
  if (item["role"] === "assistant") return true;
  return ASSISTANT_ITEMS.has(item["type"]);
}

/**
 * `input[]` → messages; the tools of `additional_tools` items go to `toolSources`. Such an item
 * makes tools available from where it stands; a chat template renders tools once, before the
 * conversation, so that is faithful only ahead of the model's first turn (Codex sends its code-mode
 * tools as `input[0]`). One after a model turn would show the model tools it did not have when it
 * sampled that turn: refused, naming the item.
 */
function itemsToMessages(
  items: unknown[],
  toolSources: ToolSource[],
  translated: WeakMap<object, unknown> | undefined,
): Message[] {
  const out: Message[] = [];
  let run: { item: Json; path: string }[] = [];
  let modelSpoke = false;
  const flush = () => {
    if (run.length > 0) out.push(translated ? foldedOnce(translated, run) : foldAssistant(run));
    run = [];
  };
  items.forEach((raw, i) => {
    const path = `input[${i}]`;
    const item = object(raw, path);
    if (isAssistantSide(item)) {
      modelSpoke = true;
      run.push({ item, path });
      return;
    }
    flush();
    const type = item["type"] ?? "message";
    if (type === "additional_tools") {
      if (modelSpoke)
        fail(
          `${path}.type`,
          "additional_tools after a model turn: the chat template shows every tool ahead of the conversation, so the model's earlier turns would be rendered with tools they were not sampled with",
        );
      toolSources.push({ raw: item["tools"], path: `${path}.tools` });
    } else if (type === "function_call_output" || type === "custom_tool_call_output" || type === "message") {
      const make = () => inputMessage(item, type, path);
      out.push(translated ? getOrCompute(translated as WeakMap<object, Message>, item, make) : make());
    } else if (type === "item_reference") {
      fail(`${path}.type`, `item_reference is not supported: ${NOT_STORED}`);
    } else fail(`${path}.type`, `unsupported input item type ${JSON.stringify(type)}`);
  });
  flush();
  return out;
}

/** A tool output or a user/system message item as a message. */
function inputMessage(item: Json, type: string, path: string): Message {
  if (type !== "message")
    return {
      role: "tool",
      tool_call_id: string(item["call_id"], `${path}.call_id`),
      content: outputContent(item["output"], `${path}.output`),
    };
  const role = item["role"];
  const content = inputContent(item["content"], `${path}.content`);
  if (role === "user") return { role: "user", content };
  if (role === "system" || role === "developer") return { role: "system", content };
  return fail(`${path}.role`, `expected user, system, developer or assistant, got ${JSON.stringify(role)}`);
}

/** A run of assistant items folded once: kept by its first item, with the run it was folded from. */
function foldedOnce(
  translated: WeakMap<object, unknown>,
  run: { item: Json; path: string }[],
): AssistantMessage {
  const first = run[0]!.item;
  const known = translated.get(first) as { items: Json[]; message: AssistantMessage } | undefined;
  if (known && known.items.length === run.length && known.items.every((x, i) => x === run[i]!.item))
    return known.message;
  const message = foldAssistant(run);
  translated.set(first, { items: run.map((r) => r.item), message });
  return message;
}

/** A function or custom tool call item as envroll's call: its id, its (namespaced) name, `args`. */
function toolCall(item: Json, path: string, args: string): ToolCall {
  const name = string(item["name"], `${path}.name`);
  const namespace = optionalString(item["namespace"], `${path}.namespace`);
  return {
    id: string(item["call_id"], `${path}.call_id`),
    name: namespace ? namespacedName(namespace, name) : name,
    arguments: args,
  };
}

/** One sampled turn: its text, its reasoning and its tool calls, in the model's spelling. */
function foldAssistant(run: { item: Json; path: string }[]): AssistantMessage {
  let content = "";
  const reasoning: string[] = [];
  const calls: ToolCall[] = [];
  let sawReasoning = false;
  for (const { item, path } of run) {
    const type = item["type"] ?? "message";
    if (type === "message") content += assistantText(item["content"], `${path}.content`);
    else if (type === "reasoning") {
      sawReasoning = true;
      reasoning.push(...readReasoning(item, path));
    } else if (type === "function_call") {
      calls.push(toolCall(item, path, string(item["arguments"], `${path}.arguments`)));
    } else if (type === "custom_tool_call") {
      const input = string(item["input"], `${path}.input`);
      calls.push(toolCall(item, path, JSON.stringify({ [CUSTOM_INPUT]: input })));
    } else fail(`${path}.type`, `unsupported assistant item type ${JSON.stringify(type)}`);
  }
  const message: AssistantMessage = { role: "assistant", content };
  if (sawReasoning) message.reasoning_content = reasoning.join("\n");
  if (calls.length > 0) message.tool_calls = calls;
  return message;
}

function assistantText(raw: unknown, path: string): string {
  if (typeof raw === "string") return raw;
  return array(raw, path)
    .map((p, j) => {
      const part = object(p, `${path}[${j}]`);
      if (part["type"] === "output_text" || part["type"] === "input_text")
        return string(part["text"], `${path}[${j}].text`);
      if (part["type"] === "refusal") return string(part["refusal"], `${path}[${j}].refusal`);
      return fail(`${path}[${j}].type`, `unsupported content part ${JSON.stringify(part["type"])}`);
    })
    .join("");
}

/** User/system content: a string stays a string; parts become text and image parts. */
function inputContent(raw: unknown, path: string): Content {
  if (typeof raw === "string") return raw;
  return array(raw, path).map((p, j) => {
    const at = `${path}[${j}]`;
    const part = object(p, at);
    if (part["type"] === "input_text" || part["type"] === "output_text")
      return { type: "text" as const, text: string(part["text"], `${at}.text`) };
    if (part["type"] === "input_image") {
      if (typeof part["image_url"] !== "string")
        fail(`${at}.image_url`, "expected an image URL (file_id images are not supported)");
      return { type: "image_url" as const, image_url: { url: part["image_url"] } };
    }
    return fail(`${at}.type`, `unsupported content part ${JSON.stringify(part["type"])}`);
  });
}

/** A tool's output: a string, content parts, or any other JSON (which the model sees as JSON). */
function outputContent(raw: unknown, path: string): Content {
  if (typeof raw === "string") return raw;
  if (Array.isArray(raw) && raw.every(isObject)) return inputContent(raw, path);
  return JSON.stringify(raw ?? null);
}
