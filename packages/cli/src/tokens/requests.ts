/**
 * `envroll tokens` requests and results: snake_case JSON in, snake_case JSON out, one renderer
 * call per request. Kept apart from the command wiring so it can be driven without stdin.
 */

import { expandBridged } from "envroll/internal/renderers/common/bridge.ts";
import { createRenderer } from "envroll/internal/renderers/index.ts";
import type {
  RenderedTokens,
  Renderer,
  RenderMessage,
  RenderTool,
} from "envroll/internal/renderers/renderer.ts";

export type TokensOp = "render" | "parse" | "bridge";

export interface RendererChoice {
  model: string;
  tokenizerPath?: string;
  enableThinking?: boolean;
  preserveAllThinking?: boolean;
  preserveThinkingBetweenToolCalls?: boolean;
}

const renderers = new Map<string, Renderer>();

/** One renderer per distinct configuration (tokenizer loading is the expensive part). */
export function rendererFor(choice: RendererChoice): Renderer {
  const key = JSON.stringify(choice);
  let r = renderers.get(key);
  if (!r) {
    r = createRenderer(choice.model, {
      tokenizerPath: choice.tokenizerPath,
      enableThinking: choice.enableThinking,
      preserveAllThinking: choice.preserveAllThinking,
      preserveThinkingBetweenToolCalls: choice.preserveThinkingBetweenToolCalls,
    });
    renderers.set(key, r);
  }
  return r;
}

function field<T>(
  req: Record<string, unknown>,
  name: string,
  check: (v: unknown) => boolean,
  what: string,
): T {
  const v = req[name];
  if (!check(v)) throw new Error(`"${name}" must be ${what}`);
  return v as T;
}

const isArray = (v: unknown) => Array.isArray(v);
const isIds = (v: unknown) => Array.isArray(v) && v.every((x) => Number.isInteger(x) && x >= 0);
const isOptBool = (v: unknown) => v === undefined || v === null || typeof v === "boolean";
const isOptTools = (v: unknown) => v === undefined || v === null || Array.isArray(v);

function attributionJson(r: RenderedTokens) {
  return {
    ids: r.tokenIds,
    message_indices: r.messageIndices,
    sampled_mask: r.sampledMask,
    is_content: r.isContent,
    message_roles: r.messageRoles,
    message_tool_names: r.messageToolNames,
  };
}

/** Runs one request; throws with a user-facing message on bad input. */
export function runTokensRequest(op: TokensOp, req: unknown, base: RendererChoice): Record<string, unknown> {
  if (typeof req !== "object" || req === null || Array.isArray(req))
    throw new Error("request must be a JSON object");
  const r = req as Record<string, unknown>;
  const tools = field<RenderTool[] | null | undefined>(r, "tools", isOptTools, "a list or null");
  const enableThinking = field<boolean | null | undefined>(r, "enable_thinking", isOptBool, "a boolean");
  const choice: RendererChoice = { ...base };
  // Renderer settings may come top-level or as a Python-style `renderer_config` object.
  const cfg = r.renderer_config;
  if (cfg !== undefined && cfg !== null && (typeof cfg !== "object" || Array.isArray(cfg))) {
    throw new Error('"renderer_config" must be an object');
  }
  for (const [key, prop] of [
    ["enable_thinking", "enableThinking"],
    ["preserve_all_thinking", "preserveAllThinking"],
    ["preserve_thinking_between_tool_calls", "preserveThinkingBetweenToolCalls"],
  ] as const) {
    const fromCfg = cfg
      ? field<boolean | null | undefined>(cfg as Record<string, unknown>, key, isOptBool, "a boolean")
      : null;
    if (typeof fromCfg === "boolean") choice[prop] = fromCfg;
    if (key === "enable_thinking") continue; // top-level enable_thinking is a per-call override
    const v = field<boolean | null | undefined>(r, key, isOptBool, "a boolean");
    if (typeof v === "boolean") choice[prop] = v;
  }
  const renderer = rendererFor(choice);
  const thinking = typeof enableThinking === "boolean" ? { enableThinking } : {};
  if (op === "render") {
    const messages = field<RenderMessage[]>(r, "messages", isArray, "a list of messages");
    const agp = field<boolean | null | undefined>(r, "add_generation_prompt", isOptBool, "a boolean");
    const out = renderer.render(messages, { tools, addGenerationPrompt: agp === true, ...thinking });
    return { ...attributionJson(out), text: renderer.decode(out.tokenIds) };
  }
  if (op === "parse") {
    const ids = field<number[]>(r, "completion_ids", isIds, "a list of token ids");
    const p = renderer.parse(ids, { tools });
    return {
      content: p.content,
      reasoning: p.reasoningContent,
      reasoning_content: p.reasoningContent,
      tool_calls: p.toolCalls.map((t) => ({
        name: t.name,
        arguments: t.arguments,
        raw: t.raw,
        status: t.status,
        token_span: t.tokenSpan,
        id: t.id,
      })),
    };
  }
  const prompt = field<number[]>(r, "prev_prompt_ids", isIds, "a list of token ids");
  const completion = field<number[]>(r, "prev_completion_ids", isIds, "a list of token ids");
  const messages = field<RenderMessage[]>(r, "new_messages", isArray, "a list of messages");
  const out = renderer.bridge(prompt, completion, messages, { tools, ...thinking });
  return out === null ? { ids: null } : attributionJson(expandBridged(out));
}
