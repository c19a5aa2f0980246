/**
 * Renderer selection. Qwen3 models get the hand-written, bridge-capable renderer; any other model
 * with a tokenizer folder gets the generic Jinja renderer (whose bridge always declines).
 */
import { loadTokenizer } from "../tokenizer/index.ts";
import { JinjaRenderer } from "./jinja.ts";
import { Qwen3Renderer } from "./qwen3.ts";
import type { Renderer } from "./renderer.ts";

export { JinjaRenderer, type JinjaRendererOptions } from "./jinja.ts";
export { Qwen3Renderer, type Qwen3RendererConfig } from "./qwen3.ts";
export type * from "./renderer.ts";
export {
  contentTokenSpansByRole,
  messageTokenSpans,
  roleTokenSpans,
  type Span,
  tokensByRole,
  tokensPerMessage,
} from "./token-spans.ts";

export interface CreateRendererOptions {
  enableThinking?: boolean;
  preserveAllThinking?: boolean;
  preserveThinkingBetweenToolCalls?: boolean;
  /** Folder with tokenizer.json + tokenizer_config.json (required for non-Qwen3 models). */
  tokenizerPath?: string;
  /** Generic renderer only: parse `<tool_call>{json}</tool_call>` blocks Qwen-style. */
  toolParser?: "qwen3" | null;
  /** Generic renderer only: extra chat-template variables (HF `apply_chat_template(**kwargs)`). */
  templateVars?: Record<string, unknown>;
}

/** Qwen3 family names. Qwen3.5/3.6, -VL, -Coder and -Next use other formats and are excluded. */
const QWEN3 = /qwen3/i;
const NOT_QWEN3 = /qwen3(?:\.5|\.6|[-_.]?vl|[-_.]?coder|[-_.]?next|[-_.]?omni)/i;

export const KNOWN_RENDERERS = [
  "qwen3 (also HF names like Qwen/Qwen3-8B)",
  "jinja (any model, with tokenizerPath)",
];

export function isQwen3Model(model: string): boolean {
  return QWEN3.test(model) && !NOT_QWEN3.test(model);
}

export function createRenderer(model: string, options: CreateRendererOptions = {}): Renderer {
  if (isQwen3Model(model)) {
    const extra = Object.keys(options.templateVars ?? {});
    if (extra.length > 0)
      throw new Error(`${model}: the qwen3 renderer takes no template variables (${extra.join(", ")})`);
    return new Qwen3Renderer(
      {
        enableThinking: options.enableThinking,
        preserveAllThinking: options.preserveAllThinking,
        preserveThinkingBetweenToolCalls: options.preserveThinkingBetweenToolCalls,
      },
      loadTokenizer(options.tokenizerPath ?? "qwen3"),
    );
  }
  if (options.tokenizerPath) {
    if (options.preserveAllThinking || options.preserveThinkingBetweenToolCalls) {
      throw new Error(`${model}: the generic Jinja renderer cannot preserve dropped thinking`);
    }
    return new JinjaRenderer(loadTokenizer(options.tokenizerPath), {
      name: model,
      enableThinking: options.enableThinking,
      toolParser: options.toolParser ?? null,
      templateVars: options.templateVars,
    });
  }
  throw new Error(
    `no renderer for model "${model}". Known: ${KNOWN_RENDERERS.join("; ")}. ` +
      "Pass tokenizerPath to use the generic Jinja renderer for other models.",
  );
}
