/**
 * ModelResponse → Responses `response` object and its stream. Output items come in the order
 * one turn is sampled: reasoning (as one summary text, so an echoing program folds it back to
 * exactly this `reasoning_content`), the message text, then one `function_call` per tool call.
 * A turn cut by the token limit is `incomplete` with reason `max_output_tokens`.
 */
import type { ModelResponse, StreamDelta } from "../../../clients/client.ts";
import { contentText } from "../../../types.ts";
import { type DialectRequest, type LiveAnswer, type SseEvent, unixSeconds } from "../dialect.ts";
import type { Json } from "../fields.ts";
import { LiveTurn } from "../live-turn.ts";
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
 * with its part/delta/done events, then `response.completed` (or `.incomplete`). The reasoning
 * item and the message text as it is sampled go out while the turn runs (when the client
 * streams); calls with the finished turn.
 */
export class ResponsesLive implements LiveAnswer {
  private readonly turn = new LiveTurn();
  private seq = 0;
  private output = 0;
  /** The message item being streamed: its id and output index. */
  private message: { item_id: string; output_index: number } | null = null;
  /** The reasoning item being streamed. */
  private thinking: { item_id: string; output_index: number } | null = null;
  private started = false;

  constructor(
    private readonly request: DialectRequest,
    private readonly model: string,
  ) {}

  get diverged(): boolean {
    return this.turn.diverged;
  }

  private emit(out: SseEvent[], type: string, fields: Json): void {
    out.push({ event: type, data: JSON.stringify({ type, sequence_number: this.seq++, ...fields }) });
  }

  private start(out: SseEvent[], r: ModelResponse): void {
    if (this.started) return;
    this.started = true;
    const shell = responseObject(r, this.request, this.model, true);
    this.emit(out, "response.created", { response: shell });
    this.emit(out, "response.in_progress", { response: shell });
  }

  /** Opens the reasoning item on first use (`item`: its finished form) and adds `delta` to it. */
  private reasoning(out: SseEvent[], item: Json, delta: string): void {
    if (!this.thinking) {
      this.thinking = { item_id: item["id"], output_index: this.output++ };
      this.emit(out, "response.output_item.added", {
        output_index: this.thinking.output_index,
        item: { ...item, summary: [] },
      });
      const part = { type: "summary_text", text: "" };
      this.emit(out, "response.reasoning_summary_part.added", { ...this.thinking, summary_index: 0, part });
    }
    this.emit(out, "response.reasoning_summary_text.delta", { ...this.thinking, summary_index: 0, delta });
  }

  /** Closes the reasoning item with its finished form. */
  private closeReasoning(out: SseEvent[], item: Json): void {
    if (!this.thinking) return;
    const at = this.thinking;
    const text: string = item["summary"][0].text;
    this.emit(out, "response.reasoning_summary_text.done", { ...at, summary_index: 0, text });
    const part = { type: "summary_text", text };
    this.emit(out, "response.reasoning_summary_part.done", { ...at, summary_index: 0, part });
    this.emit(out, "response.output_item.done", { output_index: at.output_index, item });
    this.thinking = null;
  }

  /** The reasoning item of a turn whose reasoning is `text`. */
  private reasoningItem(id: string, promptTokens: number, text: string): Json {
    const shell = partialResponse({ id, promptTokens });
    return outputItems(
      { ...shell, message: { ...shell.message, reasoning_content: text } },
      this.request,
    )[0]!;
  }

  private text(out: SseEvent[], id: string, delta: string): void {
    if (!this.message) {
      this.message = { item_id: `msg_${id}`, output_index: this.output++ };
      const item = {
        id: this.message.item_id,
        type: "message",
        role: "assistant",
        status: "in_progress",
        content: [],
      };
      this.emit(out, "response.output_item.added", { output_index: this.message.output_index, item });
      const part = { type: "output_text", text: "", annotations: [], logprobs: [] };
      this.emit(out, "response.content_part.added", { ...this.message, content_index: 0, part });
    }
    this.emit(out, "response.output_text.delta", { ...this.message, content_index: 0, delta, logprobs: [] });
  }

  delta(d: StreamDelta): SseEvent[] {
    const out: SseEvent[] = [];
    const shell = partialResponse(d);
    this.start(out, shell);
    const add = this.turn.note(d);
    if (add.reasoning !== undefined)
      this.reasoning(out, this.reasoningItem(d.id, d.promptTokens, add.reasoning), add.reasoning);
    if (add.content && this.thinking)
      this.closeReasoning(out, this.reasoningItem(d.id, d.promptTokens, this.turn.reasoning ?? ""));
    if (add.content) this.text(out, d.id, add.content);
    return out;
  }

  finish(r: ModelResponse): SseEvent[] {
    const out: SseEvent[] = [];
    this.start(out, r);
    const rest = this.turn.rest(r);
    const items = outputItems(r, this.request);
    // Text streamed for a turn that ended with none (a divergence) still gets its item closed.
    if (this.message && !items.some((i) => i["type"] === "message"))
      items.unshift({
        id: this.message.item_id,
        type: "message",
        role: "assistant",
        status: "completed",
        content: [{ type: "output_text", text: this.turn.content, annotations: [], logprobs: [] }],
      });
    // Reasoning streamed for a turn that ended with none (a divergence) still gets its item closed.
    if (this.thinking && !items.some((i) => i["type"] === "reasoning"))
      this.closeReasoning(out, this.reasoningItem(r.id, r.usage.promptTokens, this.turn.reasoning ?? ""));
    for (const item of items) {
      if (item["type"] === "reasoning") {
        if (rest.reasoning !== null && !this.message) this.reasoning(out, item, rest.reasoning);
        this.closeReasoning(out, item);
      } else if (item["type"] === "message") {
        if (rest.content !== "" || !this.message) this.text(out, r.id, rest.content);
        const text: string = item["content"][0].text;
        const at = this.message!;
        const part = { type: "output_text", text, annotations: [], logprobs: [] };
        this.emit(out, "response.output_text.done", { ...at, content_index: 0, text, logprobs: [] });
        this.emit(out, "response.content_part.done", { ...at, content_index: 0, part });
        this.emit(out, "response.output_item.done", { output_index: at.output_index, item });
      } else this.call(out, item);
    }
    const final = responseObject(r, this.request, this.model, false);
    const type = final["status"] === "incomplete" ? "response.incomplete" : "response.completed";
    this.emit(out, type, { response: final });
    return out;
  }

  private call(out: SseEvent[], item: Json): void {
    const output_index = this.output++;
    const at = { item_id: item["id"], output_index };
    if (item["type"] === "custom_tool_call") {
      this.emit(out, "response.output_item.added", {
        output_index,
        item: { ...item, status: "in_progress", input: "" },
      });
      this.emit(out, "response.custom_tool_call_input.delta", { ...at, delta: item["input"] });
      this.emit(out, "response.custom_tool_call_input.done", { ...at, input: item["input"] });
    } else {
      this.emit(out, "response.output_item.added", {
        output_index,
        item: { ...item, status: "in_progress", arguments: "" },
      });
      this.emit(out, "response.function_call_arguments.delta", { ...at, delta: item["arguments"] });
      this.emit(out, "response.function_call_arguments.done", {
        ...at,
        name: item["name"],
        arguments: item["arguments"],
      });
    }
    this.emit(out, "response.output_item.done", { output_index, item });
  }
}

/** What a delta says of the turn, as a response in progress (its shell and reasoning item). */
function partialResponse(d: StreamDelta): ModelResponse {
  return {
    id: d.id,
    model: "",
    message: { role: "assistant", content: "" },
    finishReason: "stop",
    usage: { promptTokens: d.promptTokens, completionTokens: 0 },
    tokens: null,
  };
}
