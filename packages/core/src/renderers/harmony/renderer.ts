/**
 * The gpt-oss renderer (harmony format): token-exact with the gpt-oss checkpoint's chat template
 * (render.ts says which rules), with per-token attribution, a token-level parser for
 * the analysis / commentary / final channels and tool calls (parse.ts), and the prompt
 * bridge (bridge.ts).
 */
import type { Tokenizer } from "../../tokenizer/index.ts";
import { tokenizeSegments } from "../common/attribution.ts";
import { assertWellFormed, messageRoles } from "../common/messages.ts";
import type * as R from "../renderer.ts";
import { bridgeHarmony } from "./bridge.ts";
import { DEFAULT_MODEL_IDENTITY, type HarmonySystemConfig } from "./format.ts";
import { HARMONY_STOP_IDS, parseHarmonyCompletion } from "./parse.ts";
import { harmonyToolNames, renderHarmony } from "./render.ts";

export interface GptOssRendererConfig {
  /** The system message's `Reasoning:` line (the template's `reasoning_effort`; default "medium"). */
  reasoningEffort?: string;
  /** The system message's first line (the template's `model_identity`). */
  modelIdentity?: string;
  /**
   * `Current date:` as YYYY-MM-DD. The template prints today's date; a renderer fixes it when it
   * is made (today, local time, as the template's `strftime_now` does) so that every turn of an
   * episode renders the same system message and bridges stay exact across midnight.
   */
  currentDate?: string;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

function today(): string {
  const d = new Date();
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

export class GptOssRenderer implements R.Renderer {
  readonly name = "gpt-oss";
  readonly stopTokenIds: number[] = [...HARMONY_STOP_IDS];
  readonly tokenizer: Tokenizer;
  readonly config: Readonly<HarmonySystemConfig>;

  constructor(tokenizer: Tokenizer, config: GptOssRendererConfig = {}) {
    this.tokenizer = tokenizer;
    const currentDate = config.currentDate ?? today();
    if (!DATE.test(currentDate))
      throw new Error(`gpt-oss renderer: currentDate must be YYYY-MM-DD, got ${JSON.stringify(currentDate)}`);
    for (const [key, value] of Object.entries({
      reasoningEffort: config.reasoningEffort,
      modelIdentity: config.modelIdentity,
    }))
      if (value !== undefined && typeof value !== "string")
        throw new Error(`gpt-oss renderer: ${key} must be a string, got ${JSON.stringify(value)}`);
    this.config = {
      reasoningEffort: config.reasoningEffort ?? "medium",
      modelIdentity: config.modelIdentity ?? DEFAULT_MODEL_IDENTITY,
      currentDate,
    };
  }

  render(messages: R.RenderMessage[], options: R.RenderOptions = {}): R.RenderedTokens {
    if (messages.length === 0) throw new Error("gpt-oss render: no messages provided");
    assertWellFormed(messages);
    const segments = renderHarmony(
      messages,
      options.tools,
      options.addGenerationPrompt ?? false,
      this.config,
    );
    return {
      ...tokenizeSegments(this.tokenizer, segments.segments),
      messageRoles: messageRoles(messages),
      // Metadata: the author each tool result is rendered with.
      messageToolNames: harmonyToolNames(messages),
    };
  }

  parse(completionIds: number[], _options?: { tools?: R.RenderTool[] | null }): R.ParsedResponse {
    return parseHarmonyCompletion(this.tokenizer, completionIds);
  }

  bridge(...args: R.BridgeArgs): R.BridgedTokens | null {
    return bridgeHarmony(this.tokenizer, ...args);
  }

  decode(ids: number[]): string {
    return this.tokenizer.decode(ids);
  }
}
