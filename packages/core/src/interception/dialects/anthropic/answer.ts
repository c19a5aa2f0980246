/**
 * ModelResponse → Anthropic `message` and its stream. Content blocks come in sampling order:
 * one `thinking` block (the reasoning), one `text` block, then a `tool_use` block per call with
 * the arguments as its `input` object. `stop_reason` is `max_tokens` for a cut turn, `tool_use`
 * when there are calls, `end_turn` otherwise.
 */
import type { ModelResponse, StreamDelta } from "../../../clients/client.ts";
import { pyJsonDumps } from "../../../text/py-json.ts";
import { contentText } from "../../../types.ts";
import type { LiveAnswer, SseEvent } from "../dialect.ts";
import type { Json } from "../fields.ts";
import { LiveTurn } from "../live-turn.ts";

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
 * stop reason and usage, `message_stop`. The thinking and the text as they are sampled go out
 * while the turn runs (when the client streams); tool_use blocks with the finished turn.
 */
export class AnthropicLive implements LiveAnswer {
  private readonly turn = new LiveTurn();
  private started = false;
  private index = 0;
  private textOpen = false;
  /** The open thinking block's index (null: none open). */
  private thinkingAt: number | null = null;

  constructor(private readonly model: string) {}

  get diverged(): boolean {
    return this.turn.diverged;
  }

  private start(out: SseEvent[], id: string, promptTokens: number, cachedTokens: number): void {
    if (this.started) return;
    this.started = true;
    emit(out, "message_start", {
      message: {
        id: `msg_${id}`,
        type: "message",
        role: "assistant",
        model: this.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: promptTokens - cachedTokens,
          output_tokens: 0,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: cachedTokens,
        },
      },
    });
  }

  /** Opens the thinking block on first use and adds `thinking` to it. */
  private thinking(out: SseEvent[], thinking: string): void {
    if (this.thinkingAt === null) {
      this.thinkingAt = this.index++;
      emit(out, "content_block_start", {
        index: this.thinkingAt,
        content_block: { type: "thinking", thinking: "", signature: "" },
      });
    }
    emit(out, "content_block_delta", { index: this.thinkingAt, delta: { type: "thinking_delta", thinking } });
  }

  private closeThinking(out: SseEvent[]): void {
    if (this.thinkingAt === null) return;
    const index = this.thinkingAt;
    emit(out, "content_block_delta", { index, delta: { type: "signature_delta", signature: SIGNATURE } });
    emit(out, "content_block_stop", { index });
    this.thinkingAt = null;
  }

  private text(out: SseEvent[], text: string): void {
    if (!this.textOpen) {
      this.textOpen = true;
      emit(out, "content_block_start", { index: this.index, content_block: { type: "text", text: "" } });
    }
    emit(out, "content_block_delta", { index: this.index, delta: { type: "text_delta", text } });
  }

  delta(d: StreamDelta): SseEvent[] {
    const out: SseEvent[] = [];
    this.start(out, d.id, d.promptTokens, 0);
    const add = this.turn.note(d);
    if (add.reasoning !== undefined) this.thinking(out, add.reasoning);
    if (add.content) {
      this.closeThinking(out);
      this.text(out, add.content);
    }
    return out;
  }

  finish(r: ModelResponse): SseEvent[] {
    const out: SseEvent[] = [];
    this.start(out, r.id, r.usage.promptTokens, r.usage.cachedTokens ?? 0);
    const rest = this.turn.rest(r);
    if (rest.reasoning !== null && !this.textOpen) this.thinking(out, rest.reasoning);
    this.closeThinking(out);
    if (rest.content !== "") this.text(out, rest.content);
    if (this.textOpen) emit(out, "content_block_stop", { index: this.index++ });
    for (const c of r.message.tool_calls ?? []) {
      const index = this.index++;
      const input = toolInput(c.arguments);
      emit(out, "content_block_start", {
        index,
        content_block: { type: "tool_use", id: c.id, name: c.name, input: {} },
      });
      emit(out, "content_block_delta", {
        index,
        delta: { type: "input_json_delta", partial_json: JSON.stringify(input) },
      });
      emit(out, "content_block_stop", { index });
    }
    emit(out, "message_delta", {
      delta: { stop_reason: stopReason(r), stop_sequence: null },
      // The whole usage: the prompt's cached part is known only now.
      usage: usage(r),
    });
    emit(out, "message_stop");
    return out;
  }
}

function emit(out: SseEvent[], type: string, fields: Json = {}): void {
  out.push({ event: type, data: JSON.stringify({ type, ...fields }) });
}
