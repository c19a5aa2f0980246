/**
 * ModelResponse → Responses `response` object and its stream. Output items come in the order
 * one turn is sampled: reasoning (as one summary text, so an echoing program folds it back to
 * exactly this `reasoning_content`), the message text, then one `function_call` per tool call.
 * A turn cut by the token limit is `incomplete` with reason `max_output_tokens`.
 */
import type { ModelResponse } from "../../../clients/client.ts";
import { contentText } from "../../../types.ts";
import { type DialectRequest, type SseEvent, unixSeconds } from "../dialect.ts";
import type { Json } from "../fields.ts";
import { encryptedReasoning } from "./reasoning.ts";
import { CUSTOM_INPUT } from "./tools.ts";

/** A call as the program knows the tool: its namespace member or custom tool, else as named. */
function callItem(
  r: ModelResponse,
  request: DialectRequest,
  c: { id: string; name: string; arguments: string },
  i: number,
): Json {
  const wire = request.wireTools?.get(c.name);
  const namespace = wire?.namespace ? { namespace: wire.namespace } : {};
  if (wire?.custom) {
    let input = c.arguments;
    try {
      const args = JSON.parse(c.arguments);
      if (typeof args?.[CUSTOM_INPUT] === "string") input = args[CUSTOM_INPUT];
    } catch {}
    return {
      id: `ctc_${r.id}_${i}`,
      type: "custom_tool_call",
      call_id: c.id,
      name: wire.name,
      ...namespace,
      input,
      status: "completed",
    };
  }
  return {
    id: `fc_${r.id}_${i}`,
    type: "function_call",
    call_id: c.id,
    name: wire?.name ?? c.name,
    ...namespace,
    arguments: c.arguments,
    status: "completed",
  };
}

function outputItems(r: ModelResponse, request: DialectRequest): Json[] {
  const items: Json[] = [];
  const m = r.message;
  if (typeof m.reasoning_content === "string")
    items.push({
      id: `rs_${r.id}`,
      type: "reasoning",
      summary: [{ type: "summary_text", text: m.reasoning_content }],
      encrypted_content: encryptedReasoning(m.reasoning_content),
    });
  const text = contentText(m.content);
  if (text !== "")
    items.push({
      id: `msg_${r.id}`,
      type: "message",
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text, annotations: [], logprobs: [] }],
    });
  (m.tool_calls ?? []).forEach((c, i) => {
    items.push(callItem(r, request, c, i));
  });
  return items;
}

function usage(r: ModelResponse): Json {
  return {
    input_tokens: r.usage.promptTokens,
    input_tokens_details: { cached_tokens: r.usage.cachedTokens ?? 0 },
    output_tokens: r.usage.completionTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: r.usage.promptTokens + r.usage.completionTokens,
  };
}

/** The response object; `partial` is the in-progress shell a stream opens with. */
function responseObject(r: ModelResponse, request: DialectRequest, model: string, partial: boolean): Json {
  const incomplete = r.finishReason === "length";
  return {
    id: `resp_${r.id}`,
    object: "response",
    created_at: unixSeconds(),
    status: partial ? "in_progress" : incomplete ? "incomplete" : "completed",
    background: false,
    error: null,
    incomplete_details: !partial && incomplete ? { reason: "max_output_tokens" } : null,
    model,
    output: partial ? [] : outputItems(r, request),
    previous_response_id: null,
    truncation: "disabled",
    usage: partial ? null : usage(r),
    ...request.echo,
  };
}

export function responsesAnswer(r: ModelResponse, request: DialectRequest, model: string): Json {
  return responseObject(r, request, model, false);
}

/**
 * The event sequence the SDK stream helpers (openai `responses.stream`, the Agents SDK) parse:
 * `response.created`, `response.in_progress`, per item `output_item.added` … `output_item.done`
 * with its part/delta/done events, then `response.completed` (or `.incomplete`).
 */
export function responsesEvents(r: ModelResponse, request: DialectRequest, model: string): SseEvent[] {
  const out: SseEvent[] = [];
  let seq = 0;
  const emit = (type: string, fields: Json) =>
    out.push({ event: type, data: JSON.stringify({ type, sequence_number: seq++, ...fields }) });
  const shell = responseObject(r, request, model, true);
  emit("response.created", { response: shell });
  emit("response.in_progress", { response: shell });
  outputItems(r, request).forEach((item, output_index) => {
    const at = { item_id: item["id"], output_index };
    if (item["type"] === "reasoning") {
      const text: string = item["summary"][0].text;
      emit("response.output_item.added", { output_index, item: { ...item, summary: [] } });
      const part = { type: "summary_text", text: "" };
      emit("response.reasoning_summary_part.added", { ...at, summary_index: 0, part });
      emit("response.reasoning_summary_text.delta", { ...at, summary_index: 0, delta: text });
      emit("response.reasoning_summary_text.done", { ...at, summary_index: 0, text });
      emit("response.reasoning_summary_part.done", { ...at, summary_index: 0, part: { ...part, text } });
    } else if (item["type"] === "message") {
      const text: string = item["content"][0].text;
      const part = { type: "output_text", text: "", annotations: [], logprobs: [] };
      emit("response.output_item.added", {
        output_index,
        item: { ...item, status: "in_progress", content: [] },
      });
      emit("response.content_part.added", { ...at, content_index: 0, part });
      emit("response.output_text.delta", { ...at, content_index: 0, delta: text, logprobs: [] });
      emit("response.output_text.done", { ...at, content_index: 0, text, logprobs: [] });
      emit("response.content_part.done", { ...at, content_index: 0, part: { ...part, text } });
    } else if (item["type"] === "custom_tool_call") {
      emit("response.output_item.added", {
        output_index,
        item: { ...item, status: "in_progress", input: "" },
      });
      emit("response.custom_tool_call_input.delta", { ...at, delta: item["input"] });
      emit("response.custom_tool_call_input.done", { ...at, input: item["input"] });
    } else {
      emit("response.output_item.added", {
        output_index,
        item: { ...item, status: "in_progress", arguments: "" },
      });
      emit("response.function_call_arguments.delta", { ...at, delta: item["arguments"] });
      emit("response.function_call_arguments.done", {
        ...at,
        name: item["name"],
        arguments: item["arguments"],
      });
    }
    emit("response.output_item.done", { output_index, item });
  });
  const final = responseObject(r, request, model, false);
  emit(final["status"] === "incomplete" ? "response.incomplete" : "response.completed", { response: final });
  return out;
}
