/**
 * Renderer selection. The renderer is chosen by the checkpoint's chat template (identity.ts),
 * not by the model's name: a folder whose template is Qwen3's gets the hand-written Qwen3
 * renderer whatever the folder is called, and a template envroll has not verified gets the
 * generic template renderer, with a warning. Without a folder only the carried Qwen3 tokenizer
 * can be used (`"qwen3"` or an exact Qwen3 hub name).
 */
import { isCheckpointFolder, isQwen3HubName, loadTokenizer, type Tokenizer } from "../tokenizer/index.ts";
import { GptOssRenderer } from "./harmony/renderer.ts";
import {
  GPT_OSS_TEMPLATE_SHA256,
  identifyTemplate,
  type RendererKind,
  type TemplateIdentity,
} from "./identity.ts";
import { JinjaRenderer, type ToolParserName } from "./jinja/renderer.ts";
import { Qwen3Renderer } from "./qwen3/renderer.ts";
import type { Renderer } from "./renderer.ts";

export {
  contentTokenSpansByRole,
  messageTokenSpans,
  roleTokenSpans,
  type Span,
  tokensByRole,
  tokensPerMessage,
} from "./common/token-spans.ts";
export { GptOssRenderer, type GptOssRendererConfig } from "./harmony/renderer.ts";
export { identifyTemplate, KNOWN_TEMPLATES, type TemplateIdentity, templateSha256 } from "./identity.ts";
export { JinjaRenderer, type JinjaRendererOptions } from "./jinja/renderer.ts";
export { Qwen3Renderer, type Qwen3RendererConfig } from "./qwen3/renderer.ts";
export type * from "./renderer.ts";

export interface CreateRendererOptions {
  enableThinking?: boolean;
  preserveAllThinking?: boolean;
  preserveThinkingBetweenToolCalls?: boolean;
  /** Checkpoint folder (tokenizer.json, tokenizer_config.json, chat_template.jinja); `model` may be one too. */
  tokenizerPath?: string;
  /**
   * Generic renderer only: how tool calls are parsed (Qwen-style `<tool_call>{json}</tool_call>`,
   * DeepSeek-V3's call tokens, Llama 3.x JSON); default: the verified family's own.
   */
  toolParser?: ToolParserName | null;
  /** Generic renderer only: extra chat-template variables (HF `apply_chat_template(**kwargs)`). */
  templateVars?: Record<string, unknown>;
  /** Receives the warning when the generic renderer is chosen (default: `process.emitWarning`). */
  onWarning?: (message: string) => void;
}

/** Renderer names that may be given instead of a model (`--client.renderer NAME`). */
export const RENDERER_NAMES: readonly string[] = ["qwen3", "deepseek-v3", "gpt-oss", "generic"];

export const KNOWN_RENDERERS = [
  "a checkpoint folder (the renderer follows its chat template)",
  "qwen3 (also the Qwen3 hub names, e.g. Qwen/Qwen3-8B)",
  "deepseek-v3, gpt-oss or generic (with tokenizerPath)",
];

/** True for names that select the carried Qwen3 tokenizer and renderer without a folder. */
export function isQwen3Model(model: string): boolean {
  return model === "qwen3" || isQwen3HubName(model);
}

/** True when `createRenderer(model)` needs nothing more: a Qwen3 name or a checkpoint folder. */
export function namesRenderer(model: string): boolean {
  return isQwen3Model(model) || isCheckpointFolder(model);
}

/** The Qwen3 2507 releases ship their own templates (Instruct: no thinking; Thinking: always). */
const QWEN3_2507 = /qwen3-[^/]*2507/i;

function defaultWarning(message: string): void {
  process.emitWarning(message, { code: "ENVROLL_GENERIC_RENDERER" });
}

/**
 * The tokenizer `createRenderer(model, options)` reads (a checkpoint folder, or "qwen3"), or null
 * when it would read none: so a caller can load it ahead, e.g. while a network check is in flight.
 */
export function rendererTokenizer(model: string, options: CreateRendererOptions = {}): string | null {
  const folder = options.tokenizerPath ?? (isCheckpointFolder(model) ? model : null);
  return folder ?? (isQwen3Model(model) ? "qwen3" : null);
}

export function createRenderer(model: string, options: CreateRendererOptions = {}): Renderer {
  const folder = options.tokenizerPath ?? (isCheckpointFolder(model) ? model : null);
  const explicit = RENDERER_NAMES.includes(model) ? (model as RendererKind) : null;
  if (folder === null) {
    if (isQwen3Model(model)) return qwen3(options, loadTokenizer("qwen3"));
    if (QWEN3_2507.test(model))
      throw new Error(
        `${model}: the Qwen3 2507 releases use their own chat templates, not the Qwen3 rules; ` +
          "give the checkpoint folder (tokenizerPath / --hf-checkpoint) so its template is used",
      );
    throw new Error(
      `no renderer for model "${model}". Known: ${KNOWN_RENDERERS.join("; ")}. ` +
        "Pass a checkpoint folder (tokenizerPath) to use its chat template.",
    );
  }
  const tok = loadTokenizer(folder);
  const id = identifyTemplate(tok);
  const kind = explicit ?? id.renderer;
  const warn = options.onWarning ?? defaultWarning;
  if (explicit && explicit !== id.renderer)
    warn(`${model}: renderer "${explicit}" was chosen explicitly for ${folder}, but ${id.reason}`);
  switch (kind) {
    case "qwen3":
      return qwen3(options, tok);
    case "deepseek-v3":
      return generic(
        model === "deepseek-v3" ? "deepseek-v3" : model,
        tok,
        { ...options, toolParser: options.toolParser ?? "deepseek-v3" },
        id.family ?? "deepseek-v3",
      );
    case "gpt-oss":
      // Harmony is the format whatever the folder's template; one that is not the release's may
      // write some turns differently from the rules the renderer follows.
      if (id.templateSha256 !== null && id.templateSha256 !== GPT_OSS_TEMPLATE_SHA256)
        warn(`${folder}: ${id.reason}; the gpt-oss renderer follows the release template's rules`);
      return gptOss(options, tok);
    default:
      if (id.family === null) warn(genericWarning(folder, id));
      return generic(
        model === "generic" ? (id.family ?? "generic") : model,
        tok,
        { ...options, toolParser: options.toolParser === undefined ? id.toolParser : options.toolParser },
        id.family ?? "generic",
      );
  }
}

function genericWarning(folder: string, id: TemplateIdentity): string {
  return (
    `${folder}: ${id.reason}; using the generic template renderer (ids follow the template; ` +
    "no hand-written parse rules; bridging is off unless the template proves append-only on each turn)"
  );
}

function qwen3(options: CreateRendererOptions, tok: Tokenizer): Qwen3Renderer {
  const extra = Object.keys(options.templateVars ?? {});
  if (extra.length > 0)
    throw new Error(`the qwen3 renderer takes no template variables (${extra.join(", ")})`);
  return new Qwen3Renderer(
    {
      enableThinking: options.enableThinking,
      preserveAllThinking: options.preserveAllThinking,
      preserveThinkingBetweenToolCalls: options.preserveThinkingBetweenToolCalls,
    },
    tok,
  );
}

/** The gpt-oss template's own variables (`apply_chat_template(reasoning_effort=…)`), and the date it prints. */
const GPT_OSS_VARS: Record<string, "reasoningEffort" | "modelIdentity" | "currentDate"> = {
  reasoning_effort: "reasoningEffort",
  model_identity: "modelIdentity",
  current_date: "currentDate",
};

function gptOss(options: CreateRendererOptions, tok: Tokenizer): GptOssRenderer {
  if (options.preserveAllThinking || options.preserveThinkingBetweenToolCalls)
    throw new Error(
      "gpt-oss: the renderer follows the template's reasoning rules and cannot preserve dropped reasoning",
    );
  const config: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options.templateVars ?? {})) {
    const field = GPT_OSS_VARS[key];
    if (!field)
      throw new Error(
        `gpt-oss: unknown template variable "${key}" (known: ${Object.keys(GPT_OSS_VARS).join(", ")})`,
      );
    config[field] = value;
  }
  return new GptOssRenderer(tok, config);
}

function generic(
  name: string,
  tok: Tokenizer,
  options: CreateRendererOptions,
  family: string,
): JinjaRenderer {
  if (options.preserveAllThinking || options.preserveThinkingBetweenToolCalls) {
    throw new Error(`${name}: the generic template renderer cannot preserve dropped thinking`);
  }
  return new JinjaRenderer(tok, {
    name,
    family,
    enableThinking: options.enableThinking,
    toolParser: options.toolParser ?? null,
    templateVars: options.templateVars,
  });
}
