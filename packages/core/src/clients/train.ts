/**
 * TrainClient: the token-exact model side of a training rollout.
 *
 * Each turn becomes token ids by bridging from an earlier sampled turn of the same rollout when
 * the new messages only append tool/user turns and every render input is unchanged (so the
 * sampled tokens are reused verbatim, never re-tokenized), and by a full render otherwise. The
 * bridge state lives here, in the per-rollout client session, because only the side that
 * renders knows all the inputs a prompt depends on. The ids go to SGLang's native `/generate`;
 * the sampled ids and their logprobs come back unchanged and are parsed into an assistant
 * message for the program.
 */
import { UnsupportedError } from "../errors.ts";
import type { ParsedToolCall, Renderer, RenderMessage, RenderTool } from "../renderers/renderer.ts";
import { pyJsonDumps } from "../text/py-json.ts";
import { TokenSequence } from "../token-sequence.ts";
import { messageDigest, messageHash } from "../trace/hash.ts";
import { ProviderError } from "../transport/errors.ts";
import type { SglangTransport } from "../transport/sglang-transport.ts";
import type { GenerateResult, TransportStats } from "../transport/types.ts";
import type { AssistantMessage, FinishReason, Message, Tool, ToolCall } from "../types.ts";
import type { Client, ModelRequest, ModelResponse, TurnTokens } from "./client.ts";
import { type BridgePlan, type ClientSession, ClientSessions, renderFingerprint } from "./client-session.ts";
import { rawJsonMember } from "./json-member.ts";
import { LiveContent } from "./live-content.ts";
import { PromptCache } from "./prompt-cache.ts";

export interface TrainClientOptions {
  renderer: Renderer;
  transport: SglangTransport;
  /** Model name reported in responses. */
  model?: string;
  /** Qwen3-style `enable_thinking`; undefined keeps the renderer's default. */
  enableThinking?: boolean;
  /** Disable bridging (every turn fully re-rendered) — for diagnostics and the bridge benchmark. */
  bridge?: boolean;
  /** Sampled turns per rollout a bridge may start from (default 4). */
  bridgeTurns?: number;
  /** Rollouts whose bridge state is kept when none is ended explicitly (default 4096). */
  sessionCapacity?: number;
  /** First-turn prompts kept for the other rollouts of their group (default 64; 0: none). */
  promptCache?: number;
}

/** The aborted turn is an error, not an empty reply: an abort must never look like a finished turn. */
export class TurnAbortedError extends ProviderError {}

export class TrainClient implements Client {
  readonly kind = "train" as const;
  private readonly renderer: Renderer;
  private readonly transport: SglangTransport;
  private readonly model: string;
  private readonly enableThinking: boolean | undefined;
  private readonly useBridge: boolean;
  /**
   * Bridged vs fully rendered turns, for diagnostics and benchmarks. `inputsChanged`: full
   * renders forced because a render input (tools, thinking, kwargs, system) differed from the
   * turn the prompt extends; `bridgeDeclined`: the renderer could not prove a bridge.
   */
  readonly counts = { bridged: 0, rendered: 0, bridgeDeclined: 0, inputsChanged: 0 };
  /** Of the `rendered` turns, those whose prompt came from the group's first render. */
  cachedRenders = 0;
  private readonly sessions: ClientSessions;
  private readonly prompts: PromptCache | null;

  constructor(options: TrainClientOptions) {
    this.renderer = options.renderer;
    this.transport = options.transport;
    this.model = options.model ?? options.renderer.name;
    this.enableThinking = options.enableThinking;
    this.useBridge = options.bridge ?? true;
    this.sessions = new ClientSessions(options.sessionCapacity ?? 4096, options.bridgeTurns ?? 4);
    const cached = options.promptCache ?? 64;
    this.prompts = cached > 0 ? new PromptCache(cached) : null;
  }

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    refuseImages(request.messages);
    const tools = request.tools.length > 0 ? request.tools.map(toRenderTool) : null;
    const session = this.sessions.get(request.sessionId);
    const kwargs = request.sampling["chat_template_kwargs"];
    const thinking = (kwargs as { enable_thinking?: unknown } | undefined)?.enable_thinking;
    const enableThinking = typeof thinking === "boolean" ? thinking : this.enableThinking;
    // This call's own array: the reply's hash is appended to it below.
    const hashes = request.messageHashes?.slice() ?? request.messages.map(messageHash);
    const fingerprint = renderFingerprint({
      tools: request.tools,
      enableThinking,
      chatTemplateKwargs: kwargs,
      systemPrompt: request.messages[0]?.role === "system" ? request.messages[0] : undefined,
      systemPromptHash: hashes[0],
      toolsJson: session.toolsJson.of(request.tools),
    });
    const plan: BridgePlan = this.useBridge
      ? session.plan(request.messages, hashes, fingerprint)
      : { kind: "render", inputsChanged: false };
    const prompt = this.buildPrompt(request, plan, fingerprint, { tools, enableThinking });
    const live =
      request.onDelta && !this.opensReasoning(prompt.promptIds)
        ? new LiveContent(this.renderer, tools, prompt.promptIds.length, request.onDelta)
        : null;
    const result = await this.transport.generate({
      inputIds: prompt.promptIds,
      sampling: request.sampling,
      sessionId: request.sessionId,
      turn: request.turn,
      stopTokenIds: this.renderer.stopTokenIds,
      signal: request.signal,
      ...(live ? { onTokens: (ids: readonly number[], rid: string) => live.tokens(ids, rid) } : {}),
    });
    if (result.finishReason === "abort") {
      throw new TurnAbortedError(
        `generation aborted by the engine: ${result.abortMessage ?? "no reason given"}`,
        {
          statusCode: 503,
        },
      );
    }
    const response = this.toResponse(result, prompt, tools, session);
    // A fresh reply: digested, not cached (the trace's node keeps its hash for later turns).
    response.messageHash = messageDigest(response.message);
    // `hashes` is this call's own array (the plan only compared it): it becomes the path.
    hashes.push(response.messageHash);
    session.record({
      path: hashes,
      promptIds: prompt.promptIds,
      completionIds: result.outputIds,
      fingerprint,
    });
    return response;
  }

  async countTokens(messages: Message[], tools: Tool[]): Promise<number> {
    const renderTools = tools.length > 0 ? tools.map(toRenderTool) : null;
    return this.renderer.render(messages, {
      tools: renderTools,
      enableThinking: this.enableThinking,
      addGenerationPrompt: true,
    }).tokenIds.length;
  }

  /**
   * A generation prompt that ends inside `<think>` (templates that open the reasoning for the
   * model): the completion starts as reasoning with no tag to say so, so nothing can be streamed
   * as content before the turn is parsed whole.
   */
  private opensReasoning(promptIds: TokenSequence): boolean {
    const tail = this.renderer.decode(promptIds.slice(Math.max(0, promptIds.length - 8)));
    const open = tail.lastIndexOf("<think>");
    return open >= 0 && tail.indexOf("</think>", open) < 0;
  }

  /** The transport's counters: HTTP attempts, retries by reason, finish reasons. */
  get requestStats(): TransportStats {
    return this.transport.stats;
  }

  /** Forgets a finished rollout's bridge state, and the transport's turn count for it. */
  endSession(sessionId: string): void {
    this.sessions.end(sessionId);
    // Otherwise every finished rollout stays in the transport's LRU until 10,000 newer ones push
    // it out, and each new session past that costs an eviction.
    this.transport.sessions.forget(sessionId);
  }

  private buildPrompt(
    request: ModelRequest,
    plan: BridgePlan,
    fingerprint: string,
    opts: { tools: RenderTool[] | null; enableThinking: boolean | undefined },
  ): TurnTokens {
    let bridgeDeclined: string | undefined;
    if (plan.kind === "bridge") {
      const { from, newMessages } = plan;
      let declined = "the renderer declined";
      const bridged = this.renderer.bridge(from.promptIds, from.completionIds, newMessages, {
        ...opts,
        // Template-driven renderers need the whole conversation to check the bridge on the spot.
        messages: request.messages as RenderMessage[],
        onDecline: (why) => {
          declined = why;
        },
      });
      if (bridged) {
        this.counts.bridged++;
        // Tail indices are relative to `newMessages`, which are the tail of `messages`. The tail
        // is ours (fresh from this call), so it is shifted in place.
        const offset = request.messages.length - newMessages.length;
        const indices = bridged.tail.messageIndices;
        for (let i = 0; i < indices.length; i++) {
          const mi = indices[i]!;
          if (mi >= 0) indices[i] = mi + offset;
        }
        return {
          promptIds: bridged.tokenIds,
          completionIds: [],
          completionLogprobs: [],
          attributionStart: bridged.prefixLength,
          promptMessageIndices: indices,
          promptIsContent: bridged.tail.isContent,
          bridged: true,
        };
      }
      this.counts.bridgeDeclined++;
      bridgeDeclined = declined;
    } else if (plan.inputsChanged) this.counts.inputsChanged++;
    this.counts.rendered++;
    const cached = this.prompts?.get(request.messages, fingerprint);
    if (cached) {
      this.cachedRenders++;
      return withDecline({ ...cached }, bridgeDeclined);
    }
    const rendered = this.renderer.render(request.messages, { ...opts, addGenerationPrompt: true });
    const tokens: TurnTokens = {
      promptIds: TokenSequence.from(rendered.tokenIds),
      completionIds: [],
      completionLogprobs: [],
      promptMessageIndices: rendered.messageIndices,
      promptIsContent: rendered.isContent,
      bridged: false,
    };
    // A group of one has no other rollout to reuse it. Kept anyway, each prompt's arrays lived
    // through 64 more renders: they were most of what full GCs collected in a sampled profile of
    // single-turn rollouts (copied by scavenges, then promoted).
    if (request.promptShared !== false) this.prompts?.set(request.messages, fingerprint, tokens);
    return withDecline({ ...tokens }, bridgeDeclined);
  }

  private toResponse(
    result: GenerateResult,
    prompt: TurnTokens,
    tools: RenderTool[] | null,
    session: ClientSession,
  ): ModelResponse {
    const parsed = this.renderer.parse(result.outputIds, { tools });
    const toolCalls = parsed.toolCalls.map((c) => toToolCall(c, c.id ?? session.nextToolCallId()));
    const message: AssistantMessage = { role: "assistant", content: parsed.content };
    if (parsed.reasoningContent != null) message.reasoning_content = parsed.reasoningContent;
    if (toolCalls.length > 0) message.tool_calls = toolCalls;
    const failures = parsed.toolCalls.filter((c) => c.status !== "ok");
    let finishReason: FinishReason = result.finishReason;
    // Promote stop→tool_calls only when a call parsed cleanly, as the reference client does.
    if (finishReason === "stop" && parsed.toolCalls.some((c) => c.status === "ok"))
      finishReason = "tool_calls";
    return {
      id: result.rid,
      model: this.model,
      message,
      finishReason,
      usage: {
        promptTokens: result.promptTokens,
        completionTokens: result.completionTokens,
        cachedTokens: result.cachedTokens,
      },
      tokens: { ...prompt, completionIds: result.outputIds, completionLogprobs: result.logprobs },
      weightVersion: result.weightVersion,
      weightVersionSpans: result.weightVersions,
      tokenBudget: { maxNewTokens: result.maxNewTokens, cappedBy: result.cappedBy },
      ...(failures.length > 0
        ? {
            toolCallFailures: failures.map((c) => ({
              family: this.renderer.family ?? this.renderer.name,
              reason: c.status,
              raw: c.raw,
            })),
          }
        : {}),
    };
  }

  /** One rollout's calls, or every call of this client — never the whole (maybe shared) engine. */
  async abort(sessionId?: string): Promise<void> {
    if (sessionId === undefined) await this.transport.abortOwn();
    else await this.transport.abortSession(sessionId);
  }

  async close(): Promise<void> {
    await this.transport.close();
  }
}

function withDecline(tokens: TurnTokens, bridgeDeclined: string | undefined): TurnTokens {
  if (bridgeDeclined !== undefined) tokens.bridgeDeclined = bridgeDeclined;
  return tokens;
}

function toRenderTool(tool: Tool): RenderTool {
  return {
    type: "function",
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  };
}

/**
 * A parsed call becomes a message tool call. Calls that failed to parse are kept (with the raw
 * block as arguments) so the harness answers them with an error tool message and the episode
 * continues; dropping them would end the episode silently on the model's first malformed call.
 * Arguments are serialized the way the chat template serializes a dict (Python `json.dumps`), so
 * a later full re-render reproduces the model's usual formatting.
 */
function toToolCall(call: ParsedToolCall, id: string): ToolCall {
  if (call.status === "ok") {
    const args =
      call.argumentsText ??
      (typeof call.arguments === "string"
        ? call.arguments
        : (rawJsonMember(call.raw, "arguments") ?? pyJsonDumps(call.arguments ?? {})));
    return { id, name: call.name ?? "", arguments: args };
  }
  return { id, name: call.name ?? "", arguments: call.raw };
}

/**
 * Renderers turn text into tokens; an image part would be silently dropped and the model trained
 * on a prompt it never saw. A refusal (not bad luck): the same rollout fails the same way each time.
 */
function refuseImages(messages: readonly Message[]): void {
  const i = messages.findIndex((m) => Array.isArray(m.content) && m.content.some((p) => p.type !== "text"));
  if (i >= 0) {
    throw new UnsupportedError(
      `the train client renders text only: message ${i} (${messages[i]!.role}) has a non-text content part`,
    );
  }
}
