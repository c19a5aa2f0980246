/**
 * Builds each service request's TrainClient: a renderer (cached: loading a tokenizer is costly
 * and renderers are stateless across requests) and a fresh SGLang transport for the request's
 * engine settings (its own connection pool, closed with the request).
 */
import { TrainClient } from "../clients/train.ts";
import { createRenderer } from "../renderers/index.ts";
import type { Renderer } from "../renderers/renderer.ts";
import { SglangTransport } from "../transport/index.ts";
import type { RoutingPolicy } from "../transport/types.ts";
import type { ClientFactory, EngineSpec } from "./backend.ts";
import { ScopedClient } from "./scoped-client.ts";

export interface TrainClientFactoryOptions {
  /**
   * Per-/generate request timeout. Without one, an engine that hangs (rather than failing)
   * holds its episodes for the transport's 1 h default; with one, the stalled turn fails as a
   * ProviderTimeoutError that `retries.rollout` can retry.
   */
  timeoutMs?: number;
}

export function trainClientFactory(
  defaultModel: string,
  opts: TrainClientFactoryOptions = {},
): ClientFactory {
  const renderers = new Map<string, Renderer>();
  const rendererFor = (spec: EngineSpec): Renderer => {
    const model = spec.model ?? defaultModel;
    const thinking = spec.chatTemplateKwargs["enable_thinking"];
    const enableThinking = typeof thinking === "boolean" ? thinking : undefined;
    const key = JSON.stringify([model, spec.tokenizerPath ?? null, enableThinking ?? null]);
    let renderer = renderers.get(key);
    if (!renderer) {
      renderer = createRenderer(model, { tokenizerPath: spec.tokenizerPath, enableThinking });
      renderers.set(key, renderer);
    }
    return renderer;
  };
  return (spec) => {
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
    return new ScopedClient(new TrainClient({ renderer: rendererFor(spec), transport }));
  };
}
