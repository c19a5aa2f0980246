/**
 * `POST /v1/chat/completions` on a worker: SGLang's OpenAI-compatible route over the same core.
 * The messages (and tools) are rendered with the served model's renderer (the format the
 * engine's policies read), the policy answers the rendered prompt exactly as on /generate, and the completion ids are
 * parsed back into an assistant message (reasoning and tool calls split out). So an EvalClient
 * (`--openai`) and judges run offline against the same replies a TrainClient would get.
 *
 * Not modelled: streaming and `n > 1` (400), grammars and `response_format` (accepted, the
 * policy's text is returned as is), `input_ids` / `return_token_ids` prompts.
 */
import { randomUUID } from "node:crypto";
import type { ServerResponse } from "node:http";
import { messagesFromWire, toolsFromWire } from "envroll/internal/clients/wire.ts";
import type { EngineCore, JobResult } from "./core.ts";
import { BadRequest, parseSampling } from "./sampling.ts";

export const CHAT_PATH = "/v1/chat/completions";

/** OpenAI (and SGLang-extension) request keys → native `sampling_params` names. */
const SAMPLING_KEYS: Record<string, string> = {
  max_tokens: "max_new_tokens",
  max_completion_tokens: "max_new_tokens",
  min_tokens: "min_new_tokens",
  seed: "sampling_seed",
  temperature: "temperature",
  top_p: "top_p",
  top_k: "top_k",
  min_p: "min_p",
  stop: "stop",
  stop_token_ids: "stop_token_ids",
  frequency_penalty: "frequency_penalty",
  presence_penalty: "presence_penalty",
  repetition_penalty: "repetition_penalty",
  ignore_eos: "ignore_eos",
  skip_special_tokens: "skip_special_tokens",
  no_stop_trim: "no_stop_trim",
};

export interface ChatContext {
  core: EngineCore;
  modelName: string;
}

function samplingParams(b: Record<string, unknown>, promptLength: number, contextLength: number) {
  const raw: Record<string, unknown> = {};
  for (const [key, native] of Object.entries(SAMPLING_KEYS)) if (b[key] != null) raw[native] = b[key];
  // No max_tokens: SGLang lets the completion run to the end of the context.
  raw["max_new_tokens"] ??= Math.max(0, contextLength - promptLength);
  return parseSampling(raw);
}

function readRequest(body: unknown) {
  if (body === null || typeof body !== "object" || Array.isArray(body))
    throw new BadRequest("request body must be a JSON object");
  const b = body as Record<string, unknown>;
  if (b.stream === true) throw new BadRequest("stream is not supported by the envroll engine's chat route");
  if (b.n != null && b.n !== 1) throw new BadRequest("n > 1 is not supported by the envroll engine");
  if (!Array.isArray(b.messages) || b.messages.length === 0)
    throw new BadRequest("messages: expected a non-empty array");
  let messages: ReturnType<typeof messagesFromWire>;
  let tools: ReturnType<typeof toolsFromWire>;
  try {
    messages = messagesFromWire(b.messages);
    tools = toolsFromWire(b.tools);
  } catch (e) {
    throw new BadRequest((e as Error).message);
  }
  const kwargs = (b.chat_template_kwargs ?? {}) as Record<string, unknown>;
  const thinking = typeof kwargs.enable_thinking === "boolean" ? kwargs.enable_thinking : undefined;
  return { b, messages, tools, thinking };
}

function finishReason(r: JobResult, hasToolCalls: boolean): string {
  if (r.finish.type === "length") return "length";
  if (r.finish.type === "abort") return "abort";
  return hasToolCalls ? "tool_calls" : "stop";
}

export async function handleChatCompletion(
  body: unknown,
  cutFraction: number | undefined,
  res: ServerResponse,
  ctx: ChatContext,
): Promise<Record<string, unknown>> {
  const { b, messages, tools, thinking } = readRequest(body);
  const r = ctx.core.opts.model.renderer;
  const rendered = r.render(messages, { tools, addGenerationPrompt: true, enableThinking: thinking });
  const promptIds = rendered.tokenIds;
  const sampling = samplingParams(b, promptIds.length, ctx.core.opts.contextLength);
  const rid = typeof b.rid === "string" ? b.rid : randomUUID().replaceAll("-", "");
  const job = {
    rid,
    promptIds,
    sampling,
    returnLogprob: false,
    logprobStartLen: -1,
    topLogprobsNum: 0,
    returnTextInLogprobs: false,
    loraPath: null,
  };
  ctx.core.checkContext(job);
  const ac = new AbortController();
  res.once("close", () => {
    if (!res.writableFinished) ac.abort();
  });
  const result = await ctx.core.run(job, { cutFraction, signal: ac.signal });
  const parsed = r.parse(result.ids, { tools });
  const calls = parsed.toolCalls
    .filter((c) => c.status === "ok" && c.name)
    .map((c, i) => ({
      id: c.id ?? `call_${rid.slice(0, 12)}_${i}`,
      type: "function",
      function: {
        name: c.name,
        arguments: typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments ?? {}),
      },
    }));
  const message: Record<string, unknown> = { role: "assistant", content: parsed.content };
  if (parsed.reasoningContent) message.reasoning_content = parsed.reasoningContent;
  if (calls.length > 0) message.tool_calls = calls;
  return {
    id: `chatcmpl-${rid}`,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: typeof b.model === "string" && b.model ? b.model : ctx.modelName,
    choices: [
      {
        index: 0,
        message,
        logprobs: null,
        finish_reason: finishReason(result, calls.length > 0),
        matched_stop: result.finish.type === "stop" ? result.finish.matched : null,
      },
    ],
    usage: {
      prompt_tokens: result.promptTokens,
      completion_tokens: result.ids.length,
      total_tokens: result.promptTokens + result.ids.length,
      prompt_tokens_details: { cached_tokens: result.cachedTokens },
    },
  };
}
