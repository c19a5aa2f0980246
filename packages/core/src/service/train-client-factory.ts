/**
 * Builds each service request's TrainClient: a renderer (cached: loading a tokenizer is costly
 * and renderers are stateless across requests) and a fresh SGLang transport for the request's
 * engine settings (its own connection pool, closed with the request).
 */
import { TrainClient } from "../clients/train.ts";
import {
  type CreateRendererOptions,
  createRenderer,
  isQwen3Model,
  JinjaRenderer,
} from "../renderers/index.ts";
import type { Renderer } from "../renderers/renderer.ts";
import { SglangTransport } from "../transport/index.ts";
import type { RoutingPolicy } from "../transport/types.ts";
import type { ClientFactory, EngineSpec, RequestClient } from "./backend.ts";
import { ScopedClient } from "./scoped-client.ts";

export interface TrainClientFactoryOptions {
  /**
   * Per-/generate request timeout. Without one, an engine that hangs (rather than failing)
   * holds its episodes for the transport's 1 h default; with one, the stalled turn fails as a
   * ProviderTimeoutError that `retries.rollout` can retry.
   */
  timeoutMs?: number;
}

const FLAG = "--apply-chat-template-kwargs";

/**
 * Every `--apply-chat-template-kwargs` key as renderer options. `enable_thinking` is understood
 * by every renderer; the Qwen3 renderer knows no other key, the generic Jinja renderer passes the
 * rest to its template. A key the renderer would not use is an error naming it: ignoring it would
 * render prompts other than the ones asked for.
 */
export function chatTemplateOptions(
  model: string,
  kwargs: Record<string, unknown>,
): Pick<CreateRendererOptions, "enableThinking" | "templateVars"> {
  const out: Pick<CreateRendererOptions, "enableThinking" | "templateVars"> = {};
  const vars: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(kwargs)) {
    if (key === "enable_thinking") {
      if (typeof value !== "boolean")
        throw new Error(`${FLAG}: enable_thinking must be true or false, got ${JSON.stringify(value)}`);
      out.enableThinking = value;
    } else if (isQwen3Model(model)) {
      throw new Error(
        `${FLAG}: the qwen3 renderer (${model}) does not know "${key}"; it knows: enable_thinking`,
      );
    } else {
      vars[key] = value;
    }
  }
  if (Object.keys(vars).length > 0) out.templateVars = vars;
  return out;
}

/** The Jinja renderer's template must read each extra variable, or the key would be ignored. */
function checkTemplateReads(
  renderer: Renderer,
  model: string,
  vars: Record<string, unknown> | undefined,
): void {
  if (!vars || !(renderer instanceof JinjaRenderer)) return;
  const source = renderer.tokenizer.chatTemplate ?? "";
  for (const key of Object.keys(vars)) {
    if (!new RegExp(`\\b${key.replace(/[^\w]/g, "\\$&")}\\b`).test(source)) {
      throw new Error(`${FLAG}: the chat template of ${model} never reads "${key}"`);
    }
  }
}

export function trainClientFactory(
  defaultModel: string,
  opts: TrainClientFactoryOptions = {},
): ClientFactory {
  const renderers = new Map<string, Renderer>();
  const rendererFor = (spec: EngineSpec): Renderer => {
    const model = spec.model ?? defaultModel;
    const key = JSON.stringify([model, spec.tokenizerPath ?? null, spec.chatTemplateKwargs]);
    let renderer = renderers.get(key);
    if (!renderer) {
      const kw = chatTemplateOptions(model, spec.chatTemplateKwargs);
      renderer = createRenderer(model, { tokenizerPath: spec.tokenizerPath, ...kw });
      checkTemplateReads(renderer, model, kw.templateVars);
      renderers.set(key, renderer);
    }
    return renderer;
  };
  return (spec): RequestClient => {
    const renderer = rendererFor(spec);
    const transport = new SglangTransport({
      baseUrl: spec.url,
      routingPolicy: spec.routingPolicy as RoutingPolicy | undefined,
      contextLength: spec.maxContextLen,
      maxPromptLength: spec.maxPromptLen,
      maxResponseLength: spec.maxResponseLen,
      lora: spec.lora ?? null,
      skipSpecialTokens: spec.skipSpecialTokens,
      extraStopTokenIds: spec.stopTokenIds,
      connections: spec.connections,
      timeoutMs: opts.timeoutMs,
    });
    // The end-of-turn token pads the response of a trace that sampled nothing (it is masked).
    return new ScopedClient(new TrainClient({ renderer, transport }), renderer.stopTokenIds[0]);
  };
}
