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

export function trainClientFactory(defaultModel: string): ClientFactory {
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
    });
    return new ScopedClient(new TrainClient({ renderer: rendererFor(spec), transport }));
  };
}
