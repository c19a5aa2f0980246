/**
 * Builds the model client an eval uses from the resolved `[client]` config: `train` → the
 * token-exact TrainClient (renderer + SGLang transport), `eval` → the OpenAI-compatible
 * EvalClient. API keys are read from the environment variable the config names, never stored.
 */
import type { Client } from "envroll/internal/clients/client.ts";
import { createEvalClient } from "envroll/internal/clients/eval.ts";
import { TrainClient } from "envroll/internal/clients/train.ts";
import type { ClientConfig } from "envroll/internal/config/schema.ts";
import { createRenderer, rendererTokenizer } from "envroll/internal/renderers/index.ts";
import { loadTokenizer, prefetchTokenizer } from "envroll/internal/tokenizer/index.ts";
import { SglangTransport } from "envroll/internal/transport/index.ts";
import { UsageError } from "./args.ts";

export function apiKey(varName: string | null): string | undefined {
  if (!varName) return undefined;
  return process.env[varName] || undefined;
}

/** The renderer name a TrainClient uses: `renderer` (string), else `renderer_model_name`, else the model. */
export function rendererName(client: Extract<ClientConfig, { type: "train" }>, model: string): string {
  if (typeof client.renderer === "string") return client.renderer;
  return client.renderer_model_name ?? model;
}

/** Qwen3-style `enable_thinking` from `sampling.chat_template_kwargs`, as SGLang reads it. */
export function enableThinking(sampling: Record<string, unknown>): boolean | undefined {
  const kwargs = sampling["chat_template_kwargs"] as Record<string, unknown> | undefined;
  const v = kwargs?.["enable_thinking"];
  return typeof v === "boolean" ? v : undefined;
}

const rendererOptions = (client: Extract<ClientConfig, { type: "train" }>) =>
  typeof client.renderer === "object" && client.renderer !== null ? client.renderer : {};

/**
 * Reads the tokenizer `makeClient(client, model)` will use into the process's tokenizer cache
 * (a no-op when there is none to read). Failures are left for makeClient to report.
 */
export function preloadTokenizer(client: ClientConfig, model: string): void {
  const name = tokenizerName(client, model);
  try {
    if (name !== null) loadTokenizer(name);
  } catch {
    // makeClient meets the same error and says it with its hint.
  }
}

/**
 * Starts reading the tokenizer's cached form in the background (preloadTokenizer then finds it
 * in memory); settles when it is read. Never rejects.
 */
export function prefetchClientTokenizer(client: ClientConfig, model: string): Promise<void> {
  const name = tokenizerName(client, model);
  return name === null ? Promise.resolve() : prefetchTokenizer(name);
}

function tokenizerName(client: ClientConfig, model: string): string | null {
  if (client.type !== "train") return null;
  try {
    return rendererTokenizer(rendererName(client, model), rendererOptions(client) as object);
  } catch {
    return null;
  }
}

export function makeClient(client: ClientConfig, model: string, thinking?: boolean): Client {
  if (client.type === "eval") return createEvalClient(client, model);
  const name = rendererName(client, model);
  const options = rendererOptions(client);
  let renderer: ReturnType<typeof createRenderer>;
  try {
    renderer = createRenderer(name, { enableThinking: thinking, ...(options as object) });
  } catch (e) {
    throw new UsageError(
      `${e instanceof Error ? e.message : String(e)} (set --client.renderer qwen3 or --client.renderer_model_name NAME)`,
    );
  }
  const { deadline } = client;
  const transport = new SglangTransport({
    baseUrl: client.base_url,
    headers: client.headers,
    apiKey: apiKey(client.api_key_var),
    timeoutMs: client.timeout === null ? undefined : client.timeout * 1000,
    ...(deadline
      ? { deadline: { baseMs: deadline.base * 1000, perTokenMs: deadline.per_token * 1000 } }
      : {}),
    lora: client.lora ?? null,
    contextLength: client.max_context_tokens ?? undefined,
    // An eval wants every rollout answered: a stalled attempt cut by the deadline and an abort it
    // did not send itself (a weight update or pause on a shared engine) are retried. Training
    // (`envroll serve`) builds its clients elsewhere and keeps an abort as the signal to stop.
    retry: {
      onTimeout: true,
      onAbort: true,
      ...(client.max_retries !== undefined ? { maxAttempts: client.max_retries + 1 } : {}),
    },
  });
  return new TrainClient({ renderer, transport, model, enableThinking: thinking });
}
