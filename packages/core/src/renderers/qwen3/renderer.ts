/**
 * The hand-written Qwen3 renderer (Qwen/Qwen3-*): token-exact with the HF chat template, with
 * per-token attribution, a token-level parser and the prompt bridge.
 */
import { loadTokenizer, type Tokenizer } from "../../tokenizer/index.ts";
import { SegmentList, tokenizeSegments } from "../common/attribution.ts";
import { bridgedTokens, bridgeIds, openBridge } from "../common/bridge.ts";
import {
  assertWellFormed,
  contentText,
  jinjaStr,
  messageRoles,
  messageToolNames,
} from "../common/messages.ts";
import type * as R from "../renderer.ts";
import {
  hfTemplateRaises,
  pushAssistant,
  pushGenerationPrompt,
  pushPlainTurn,
  pushToolResponse,
  pushToolsSystem,
  QWEN3_IDS,
} from "./format.ts";
import { parseQwen3Completion } from "./parse.ts";
import { lastQueryIndex, preservePastThinking, splitReasoning } from "./thinking.ts";

/** Mirrors the Python `Qwen3RendererConfig` (same defaults). */
export interface Qwen3RendererConfig {
  enableThinking?: boolean;
  preserveAllThinking?: boolean;
  preserveThinkingBetweenToolCalls?: boolean;
}

export class Qwen3Renderer implements R.Renderer {
  readonly name = "qwen3";
  readonly stopTokenIds: number[] = [QWEN3_IDS.imEnd, QWEN3_IDS.endOfText];
  readonly tokenizer: Tokenizer;
  readonly config: Required<Qwen3RendererConfig>;
  /**
   * The renderer-only flags have no HF equivalent, so their reference is the Python renderer's
   * own output — including its two known deviations from HF (single `</think>` split; assistant
   * opener encoded apart from the body). Without them envroll is exact to HF.
   */
  private readonly pythonReference: boolean;

  constructor(config: Qwen3RendererConfig = {}, tokenizer: Tokenizer = loadTokenizer("qwen3")) {
    this.tokenizer = tokenizer;
    this.config = {
      enableThinking: config.enableThinking ?? true,
      preserveAllThinking: config.preserveAllThinking ?? false,
      preserveThinkingBetweenToolCalls: config.preserveThinkingBetweenToolCalls ?? false,
    };
    this.pythonReference = this.config.preserveAllThinking || this.config.preserveThinkingBetweenToolCalls;
  }

  render(messages: R.RenderMessage[], options: R.RenderOptions = {}): R.RenderedTokens {
    if (messages.length === 0) throw new Error("qwen3 render: no messages provided");
    assertWellFormed(messages);
    const enableThinking = options.enableThinking ?? this.config.enableThinking;
    // Where HF raises, the Python renderer is the reference (see `pythonReference`).
    const pythonMode = this.pythonReference || hfTemplateRaises(messages);
    const contents = messages.map(
      (m) => (pythonMode ? null : hfNullToolContent(m)) ?? contentText(m.content),
    );
    const out = new SegmentList();
    const firstIsSystem = messages[0]!.role === "system";
    const tools = options.tools;
    if (tools && tools.length > 0) pushToolsSystem(out, tools, firstIsSystem ? messages[0]! : null);
    else if (firstIsSystem) pushPlainTurn(out, "system", contents[0]!, 0);

    const lastQi = lastQueryIndex(messages, contents);
    for (let i = 0; i < messages.length; i++) {
      const msg = messages[i]!;
      switch (msg.role) {
        case "system":
          if (i > 0) pushPlainTurn(out, "system", contents[i]!, i);
          break;
        case "user":
          pushPlainTurn(out, "user", contents[i]!, i);
          break;
        case "assistant": {
          const { reasoning, content } = splitReasoning(msg, contents[i]!, pythonMode);
          const inWindow = i > lastQi && (i === messages.length - 1 || reasoning !== "");
          const override = reasoning !== "" && preservePastThinking(messages, i, this.config);
          pushAssistant(out, msg, i, reasoning, content, inWindow || override, pythonMode);
          break;
        }
        case "tool":
          pushToolResponse(
            out,
            contents[i]!,
            i,
            i > 0 && messages[i - 1]!.role === "tool",
            i + 1 < messages.length && messages[i + 1]!.role === "tool",
          );
          break;
        // Other roles are not part of the Qwen3 template: it emits nothing for them.
      }
    }
    if (options.addGenerationPrompt) pushGenerationPrompt(out, enableThinking);
    const tokens = tokenizeSegments(this.tokenizer, out.segments);
    return {
      tokenIds: tokens.tokenIds,
      messageIndices: tokens.messageIndices,
      sampledMask: tokens.sampledMask,
      isContent: tokens.isContent,
      messageRoles: messageRoles(messages),
      messageToolNames: messageToolNames(messages),
    };
  }

  parse(completionIds: number[], _options?: { tools?: R.RenderTool[] | null }): R.ParsedResponse {
    return parseQwen3Completion(this.tokenizer, completionIds, this.stopTokenIds);
  }

  /**
   * Extends `prevPrompt + prevCompletion` (trimmed to the completion's last turn close, or with
   * a synthesized `<|im_end|>` when it was truncated) by the new non-assistant messages and the
   * generation prompt. Only the new part is tokenized, so the cost follows the new tokens.
   */
  bridge(
    ...[prevPromptIds, prevCompletionIds, newMessages, options = {}]: R.BridgeArgs
  ): R.BridgedTokens | null {
    const decline = openBridge(prevPromptIds, newMessages, options);
    if (!decline) return null;
    assertWellFormed(newMessages);
    // Render the new messages as the full render of this conversation would (HF's `None` for a
    // null tool result, unless HF raises somewhere and the Python renderer is the reference).
    const pythonMode =
      this.pythonReference || (options.messages ? hfTemplateRaises(options.messages) : false);
    const out = new SegmentList();
    // The `\n` after the close: the template writes it, the engine stopped before it.
    out.push("\n", -1, false, false);
    for (let i = 0; i < newMessages.length; i++) {
      const msg = newMessages[i]!;
      // As in a full render: HF prints a tool message's null content as `None`.
      const content = (pythonMode ? null : hfNullToolContent(msg)) ?? contentText(msg.content);
      if (msg.role === "user" || msg.role === "system") pushPlainTurn(out, msg.role, content, i);
      else if (msg.role === "tool") {
        pushToolResponse(
          out,
          content,
          i,
          i > 0 && newMessages[i - 1]!.role === "tool",
          i + 1 < newMessages.length && newMessages[i + 1]!.role === "tool",
        );
      } else return decline(`role "${msg.role}" cannot be appended to a Qwen3 conversation`);
    }
    pushGenerationPrompt(out, options.enableThinking ?? this.config.enableThinking);
    const ext = tokenizeSegments(this.tokenizer, out.segments);
    const ids = bridgeIds(
      prevPromptIds,
      prevCompletionIds,
      [QWEN3_IDS.imEnd, QWEN3_IDS.endOfText],
      QWEN3_IDS.imEnd,
      ext.tokenIds,
    );
    return bridgedTokens(ids, ext, messageRoles(newMessages), messageToolNames(newMessages));
  }

  decode(ids: number[]): string {
    return this.tokenizer.decode(ids);
  }
}

/**
 * HF prints a tool message's `null` content as Python's `None` (the template does not raise
 * there); the Python renderer, and so envroll in Python mode and in bridges, writes "".
 */
function hfNullToolContent(m: R.RenderMessage): string | null {
  if (m.role !== "tool" || typeof m.content === "string" || m.content === undefined) return null;
  // Text parts are joined (as the Python renderer does); other values print as Jinja2 prints them.
  if (Array.isArray(m.content) && m.content.every((p) => p && typeof p === "object" && "type" in p))
    return null;
  return jinjaStr(m.content);
}
