/**
 * One rollout's interception session: the logic behind `/v1/chat/completions`, callable
 * in-process by the built-in harness loops (no HTTP hop, which would double per-turn cost) and
 * over HTTP by external programs. Per model call it checks limits, then the task's stop
 * conditions, records the turn in the trace, and drives the user simulator.
 */

import {
  type Client,
  estimateTokens,
  type ModelResponse,
  type Sampling,
  type StreamDelta,
} from "../clients/client.ts";
import { samplingKeysFor } from "../config/sampling-keys.ts";
import {
  asTyped,
  boundary,
  InterceptionError,
  OverlongPromptError,
  RequestCancelledError,
  UserError,
} from "../errors.ts";
import { type RolloutLimits, reachedLimit } from "../limits.ts";
import type { Runtime } from "../runtimes/runtime.ts";
import { firedStop } from "../scoring.ts";
import type { HandlerContext, TaskHandlers, ToolDefinition, UserSimulator } from "../task.ts";
import { failedTurnError, type ToolCallFailurePolicy } from "../tool-call-failures.ts";
import { ListJson, messageHash } from "../trace/hash.ts";
import type { Trace } from "../trace/trace.ts";
import { contentText, type Message, type TaskData, type Tool } from "../types.ts";
import { EchoedArguments } from "./echoed-arguments.ts";
import { Resends, requestKey } from "./resends.ts";
import { runToolCall } from "./tools.ts";
import { DROPPED_SAMPLING_INFO } from "./trace-info.ts";

export interface SessionOptions<D extends TaskData = TaskData> {
  task: D;
  handlers: TaskHandlers<D>;
  trace: Trace;
  client: Client;
  model: string;
  /** Config sampling: authoritative over whatever the program sends. */
  sampling: Sampling;
  limits: RolloutLimits;
  runtime: Runtime | null;
  /** Tools the task offers (after `disabled_tools`). */
  tools: readonly ToolDefinition<D>[];
  user: UserSimulator | null;
  signal: AbortSignal;
  /** `harness.hosted_tools = "refuse"`: a request offering a hosted tool is a 400. */
  refuseHostedTools?: boolean;
  /** `tool_call_failures`: with `action = "error"` a turn whose tool call did not parse fails the rollout. */
  toolCallFailures?: ToolCallFailurePolicy;
  /** Passed on each model request (see ModelRequest.promptShared). */
  promptShared?: boolean;
}

export type CompletionResult =
  | { kind: "completion"; response: ModelResponse }
  /** A limit or stop condition fired before this request produced any completion. */
  | { kind: "stopped"; reason: string };

export class RolloutSession<D extends TaskData = TaskData> {
  /** The last failure behind a request (typed); the rollout re-raises it after the harness exits. */
  error: unknown = null;
  readonly trace: Trace;
  private readonly o: SessionOptions<D>;
  private opening: Message[] | null = null;
  /** What the program has seen vs. what the model saw (they differ by injected user turns). */
  private programView: string[] | null = null;
  private modelView: Message[] | null = null;
  /** Made on the first request that can be re-sent (HTTP only). */
  private resendsOf: Resends<CompletionResult> | null = null;
  private handlerContext: HandlerContext<D> | null = null;
  /** The request tools' canonical JSON, kept while a program resends the same tools. */
  private toolsJson: ListJson | null = null;
  /** Made when a dialect answers a call it cannot carry verbatim (see echoed-arguments.ts). */
  private echoed: EchoedArguments | null = null;

  constructor(options: SessionOptions<D>) {
    this.o = options;
    this.trace = options.trace;
  }

  get model(): string {
    return this.o.model;
  }
  get client(): Client {
    return this.o.client;
  }

  /** What handlers see: the same for every call of the session, so it is made once. */
  private context(): HandlerContext<D> {
    this.handlerContext ??= {
      task: this.o.task,
      trace: this.trace,
      runtime: this.o.runtime,
      signal: this.o.signal,
    };
    return this.handlerContext;
  }

  /**
   * Counts a model request by the dialect (and streaming) it came in, in `trace.info.dialects`
   * (e.g. `{"responses+stream": 3}`), so runs report which wire formats their harness spoke.
   */
  noteDialect(dialect: string, stream: boolean): void {
    const key = stream ? `${dialect}+stream` : dialect;
    const counts = (this.trace.info["dialects"] ?? {}) as Record<string, number>;
    counts[key] = (counts[key] ?? 0) + 1;
    this.trace.info["dialects"] = counts;
  }

  get refuseHostedTools(): boolean {
    return this.o.refuseHostedTools === true;
  }

  /**
   * Lists tools a program offered that the environment cannot serve (hosted tools), left out of
   * the prompt, in `trace.info.dropped_tools` (once each).
   */
  noteDroppedTools(names: readonly string[]): void {
    if (names.length === 0) return;
    const have = (this.trace.info["dropped_tools"] as string[] | undefined) ?? [];
    const add = names.filter((n) => !have.includes(n));
    if (add.length > 0) this.trace.info["dropped_tools"] = [...have, ...add];
  }

  /** Remembers the answered calls whose arguments `echoOf` re-spells when sent back. */
  noteAnswered(message: Message, echoOf: ((args: string) => string | null) | undefined): void {
    if (!echoOf) return;
    this.echoed ??= new EchoedArguments();
    this.echoed.note(message, echoOf);
  }

  /** A program's history with re-spelled echoes of answered calls back to their sampled arguments. */
  restoreAnswered(messages: Message[]): Message[] {
    return this.echoed ? this.echoed.restore(messages) : messages;
  }

  /** Counts a streamed turn whose committed text does not start with what was streamed. */
  noteStreamDiverged(): void {
    this.trace.info["stream_diverged"] = ((this.trace.info["stream_diverged"] as number) ?? 0) + 1;
  }

  /** Prompt tokens of a conversation (Anthropic `count_tokens`); never a turn of the trace. */
  countTokens(messages: Message[], tools: Tool[]): Promise<number> {
    const client = this.o.client;
    return client.countTokens
      ? client.countTokens(messages, tools)
      : Promise.resolve(estimateTokens(messages, tools));
  }

  /** Executes a task tool by name; failures become the returned text. */
  executeTool(name: string, args: string | Record<string, unknown>): Promise<string> {
    return runToolCall(this.o.tools, name, args, this.context());
  }

  /** Limits first, then the task's stop conditions; an earlier stop (or error) also refuses. */
  async refused(): Promise<string | null> {
    return this.refusal();
  }

  /** `refused`, without a promise when no stop condition returned one. */
  private refusal(): string | null | Promise<string | null> {
    if (this.trace.stopCondition !== null) return this.trace.stopCondition;
    const { inputTokens, outputTokens } = this.trace.usage;
    const limit = reachedLimit(this.o.limits, { numTurns: this.trace.numTurns, inputTokens, outputTokens });
    if (limit) return limit;
    return firedStop(this.o.handlers.stops, this.context());
  }

  /**
   * The conversation the model should see for this request: the program's messages, with the
   * user simulator's opening and injected turns restored when the program's history omits them.
   */
  private async modelMessages(program: readonly Message[]): Promise<Message[]> {
    if (!this.o.user) return [...program];
    const view = this.programView;
    if (
      view &&
      this.modelView &&
      view.length <= program.length &&
      view.every((h, i) => h === messageHash(program[i]!))
    )
      return [...this.modelView, ...program.slice(view.length)];
    const prompt = this.o.task.prompt;
    if (prompt != null && (typeof prompt === "string" ? prompt !== "" : prompt.length > 0))
      return [...program];
    this.opening ??= await boundary(UserError, "user simulator (opening)", () => this.o.user!.respond(""));
    const lead = program.findIndex((m) => m.role !== "system");
    const cut = lead < 0 ? program.length : lead;
    return [...program.slice(0, cut), ...this.opening, ...program.slice(cut)];
  }

  /**
   * One model call on behalf of the program. Any failure is also kept on `error`, because over
   * HTTP the program only sees a status code and may exit for its own reasons afterwards.
   * `requesterGone` (HTTP only) fires when the program left before getting the answer: an
   * identical request it re-sends is then answered from that recorded turn (see resends.ts).
   * `onDelta` (a streaming request) sees the turn as it is sampled, when the client can stream
   * and no user simulator may turn one request into several samples.
   */
  complete(
    program: readonly Message[],
    tools: readonly Tool[],
    programSampling: Sampling = {},
    requesterGone?: AbortSignal,
    onDelta?: (delta: StreamDelta) => void,
  ): Promise<CompletionResult> {
    const live = this.o.user ? undefined : onDelta;
    if (!requesterGone) return this.guarded(program, tools, programSampling, live);
    return this.resendable(program, tools, programSampling, requesterGone, live);
  }

  private async resendable(
    program: readonly Message[],
    tools: readonly Tool[],
    programSampling: Sampling,
    requesterGone: AbortSignal,
    onDelta: ((delta: StreamDelta) => void) | undefined,
  ): Promise<CompletionResult> {
    this.toolsJson ??= new ListJson();
    const key = requestKey(program, tools, programSampling, this.toolsJson.of(tools));
    this.resendsOf ??= new Resends<CompletionResult>();
    const replay = await this.resendsOf.claim(key);
    if (replay?.kind === "completion") return replay;
    const result = this.guarded(program, tools, programSampling, onDelta);
    this.resendsOf.track(key, result, requesterGone);
    return result;
  }

  /** One turn (or a user-simulated exchange); any failure is also kept on `error`. */
  private async guarded(
    program: readonly Message[],
    tools: readonly Tool[],
    programSampling: Sampling,
    onDelta?: (delta: StreamDelta) => void,
  ): Promise<CompletionResult> {
    try {
      if (this.o.signal.aborted) throw new RequestCancelledError("rollout aborted");
      let messages = this.o.user ? await this.modelMessages(program) : [...program];
      const sampling: Sampling = hasKeys(programSampling)
        ? { ...this.accepted(programSampling), ...this.o.sampling }
        : { ...this.o.sampling };
      let last: ModelResponse | null = null;
      for (;;) {
        const refusal = this.refusal();
        const reason = typeof refusal === "object" && refusal !== null ? await refusal : refusal;
        if (reason !== null) {
          this.trace.stop(reason);
          // Mid-simulation the program gets the last completion; otherwise a refusal.
          return last ? this.answered(program, messages, last) : { kind: "stopped", reason };
        }
        const plan = this.trace.graph.prepareTurn(messages);
        let response: ModelResponse;
        try {
          response = await this.sample(messages, plan.hashes, tools, sampling, onDelta);
        } catch (e) {
          if (e instanceof OverlongPromptError) {
            // A prompt that no longer fits is a clean truncation, not a failure.
            this.trace.stop("context_length");
            return last
              ? this.answered(program, messages, last)
              : { kind: "stopped", reason: "context_length" };
          }
          // Whatever the client threw on abort, the cause is the abort (timeout or shutdown).
          if (this.o.signal.aborted) throw new RequestCancelledError("rollout aborted", { cause: e });
          throw asTyped(InterceptionError, "model call", e);
        }
        this.trace.recordTurn(plan, response);
        const failed = failedTurnError(this.o.toolCallFailures, response, this.trace.numTurns);
        if (failed) throw failed;
        if ((response.message.tool_calls?.length ?? 0) > 0 || !this.o.user)
          return this.answered(program, messages, response);
        const reply = await boundary(UserError, "user simulator", () =>
          this.o.user!.respond(contentText(response.message.content)),
        );
        messages = [...messages, response.message, ...reply];
        last = response;
        if (reply.length === 0) return this.answered(program, messages, response);
      }
    } catch (e) {
      this.error = asTyped(InterceptionError, "interception", e);
      throw this.error;
    }
  }

  /**
   * One model call. A token cap the program asked for (an agent's own `max_tokens`: Claude Code
   * asks 32000) may exceed what the context leaves; an endpoint that refuses such a request is
   * asked again without the program's cap, as Verifiers' eval owns the token budget. A cap the
   * config set is the environment's own and stands.
   */
  private async sample(
    messages: Message[],
    messageHashes: readonly string[],
    tools: readonly Tool[],
    sampling: Sampling,
    onDelta: ((delta: StreamDelta) => void) | undefined,
  ): Promise<ModelResponse> {
    const request = {
      messages,
      messageHashes,
      tools: [...tools],
      sampling,
      sessionId: this.trace.id,
      turn: this.trace.numTurns,
      signal: this.o.signal,
      ...(onDelta ? { onDelta } : {}),
      ...(this.o.promptShared === undefined ? {} : { promptShared: this.o.promptShared }),
    };
    try {
      return await this.o.client.getResponse(request);
    } catch (e) {
      if (
        !(e instanceof OverlongPromptError) ||
        sampling.max_tokens === undefined ||
        this.o.sampling.max_tokens !== undefined
      )
        throw e;
      const { max_tokens: _dropped, ...uncapped } = sampling;
      return await this.o.client.getResponse({ ...request, sampling: uncapped });
    }
  }

  /**
   * The program's sampling keys the engine accepts. A TrainClient sends sampling to SGLang,
   * which rejects unknown keys with a 400 on every turn; those are dropped and listed in the
   * trace's info instead (the config's own keys were checked when it loaded).
   */
  private accepted(programSampling: Sampling): Sampling {
    if (this.o.client.kind !== "train") return programSampling;
    const known = samplingKeysFor("train");
    const kept: Sampling = {};
    for (const [k, v] of Object.entries(programSampling)) {
      if (known.has(k)) kept[k] = v;
      else {
        const dropped = (this.trace.info[DROPPED_SAMPLING_INFO] as string[] | undefined) ?? [];
        if (!dropped.includes(k)) this.trace.info[DROPPED_SAMPLING_INFO] = [...dropped, k];
      }
    }
    return kept;
  }

  private answered(
    program: readonly Message[],
    messages: Message[],
    response: ModelResponse,
  ): CompletionResult {
    if (this.o.user) {
      this.programView = [...program, response.message].map(messageHash);
      // After simulator turns `messages` already holds the reply (and what followed); keep it all.
      this.modelView = messages.includes(response.message) ? messages : [...messages, response.message];
    }
    return { kind: "completion", response };
  }
}

function hasKeys(o: object): boolean {
  for (const _ in o) return true;
  return false;
}
