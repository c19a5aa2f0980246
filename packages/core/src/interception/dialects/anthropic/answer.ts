/**
 * ModelResponse → Anthropic `message` and its stream. Content blocks come in sampling order:
 * one `thinking` block (the reasoning), one `text` block, then a `tool_use` block per call with
 * the arguments as its `input` object. `stop_reason` is `max_tokens` for a cut turn, `tool_use`
 * when there are calls, `end_turn` otherwise.
 */
import type { ModelResponse } from "../../../clients/client.ts";
import { pyJsonDumps } from "../../../text/py-json.ts";
import { contentText } from "../../../types.ts";
import type { SseEvent } from "../dialect.ts";
import type { Json } from "../fields.ts";

/** Thinking blocks must carry a signature; programs echo it back and envroll ignores it. */
const SIGNATURE = "envroll";

function toolInput(args: string): Json {
  return objectArguments(args) ?? wrapped(args);
}

function objectArguments(args: string): Json | null {
  try {
    const v = JSON.parse(args);
    if (typeof v === "object" && v !== null && !Array.isArray(v)) return v;
  } catch {}
  return null;
}

/** The model wrote arguments that are not a JSON object; the program sees them as they are. */
function wrapped(args: string): Json {
  return { arguments: args };
}

/** What parse.ts makes of a wrapped call echoed back (the session restores the sampled text). */
export function echoedArguments(args: string): string | null {
  return objectArguments(args) === null ? pyJsonDumps(wrapped(args)) : null;
}

function contentBlocks(r: ModelResponse): Json[] {
  const out: Json[] = [];
  const m = r.message;
  if (typeof m.reasoning_content === "string")
    out.push({ type: "thinking", thinking: m.reasoning_content, signature: SIGNATURE });
  const text = contentText(m.content);
  if (text !== "") out.push({ type: "text", text });
  for (const c of m.tool_calls ?? [])
    out.push({ type: "tool_use", id: c.id, name: c.name, input: toolInput(c.arguments) });
  return out;
}

function stopReason(r: ModelResponse): string {
  if (r.finishReason === "length") return "max_tokens";
  return (r.message.tool_calls?.length ?? 0) > 0 ? "tool_use" : "end_turn";
}

/** Anthropic's `input_tokens` excludes cache reads, which are counted on their own. */
function usage(r: ModelResponse): Json {
  const cached = r.usage.cachedTokens ?? 0;
  return {
    input_tokens: r.usage.promptTokens - cached,
    output_tokens: r.usage.completionTokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: cached,
  };
}

export function anthropicAnswer(r: ModelResponse, model: string): Json {
  return {
    id: `msg_${r.id}`,
    type: "message",
    role: "assistant",
    model,
    content: contentBlocks(r),
    stop_reason: stopReason(r),
    stop_sequence: null,
    usage: usage(r),
  };
}

/**
 * The event sequence the SDK stream helpers (`messages.stream`) parse: `message_start`, per block
 * `content_block_start` / `content_block_delta` / `content_block_stop`, `message_delta` with the
 * stop reason and output tokens, `message_stop`.
 */
export function anthropicEvents(r: ModelResponse, model: string): SseEvent[] {
  const out: SseEvent[] = [];
  const emit = (type: string, fields: Json = {}) =>
    out.push({ event: type, data: JSON.stringify({ type, ...fields }) });
  const message = anthropicAnswer(r, model);
  emit("message_start", {
    message: {
      ...message,
      content: [],
      stop_reason: null,
      usage: { ...message["usage"], output_tokens: 0 },
    },
  });
  (message["content"] as Json[]).forEach((block, index) => {
    if (block["type"] === "thinking") {
      emit("content_block_start", {
        index,
        content_block: { type: "thinking", thinking: "", signature: "" },
      });
      emit("content_block_delta", { index, delta: { type: "thinking_delta", thinking: block["thinking"] } });
      emit("content_block_delta", {
        index,
        delta: { type: "signature_delta", signature: block["signature"] },
      });
    } else if (block["type"] === "text") {
      emit("content_block_start", { index, content_block: { type: "text", text: "" } });
      emit("content_block_delta", { index, delta: { type: "text_delta", text: block["text"] } });
    } else {
      emit("content_block_start", { index, content_block: { ...block, input: {} } });
      emit("content_block_delta", {
        index,
        delta: { type: "input_json_delta", partial_json: JSON.stringify(block["input"]) },
      });
    }
    emit("content_block_stop", { index });
  });
  emit("message_delta", {
    delta: { stop_reason: message["stop_reason"], stop_sequence: null },
    usage: { output_tokens: r.usage.completionTokens },
  });
  emit("message_stop");
  return out;
}
