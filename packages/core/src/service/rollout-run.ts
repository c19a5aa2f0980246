/**
 * One `POST /rollout` request: run groups, convert each finished group to Miles samples, stream
 * it, and keep the train cursor exact.
 *
 * Groups run through a small worker pool (at most ⌊concurrency / n⌋ groups in flight, so a large
 * over-sampling batch does not start thousands of rollouts at once) and stream in completion
 * order, like Miles' own loop. When the request is aborted (client gone, `/abort`, fatal
 * conversion error) every unfinished group is handed back to the cursor, never counted as done.
 */
import { setMaxListeners } from "node:events";
import type { Sampling } from "../clients/client.ts";
import {
  ConversionError,
  finalAttemptFailed,
  groupOutcome,
  SampleCounter,
  tracesToGroup,
} from "../miles/convert.ts";
import { type GroupElement, groupSamples } from "../miles/sample.ts";
import type { TraceRecord } from "../trace/record.ts";
import { runPulled } from "../workers.ts";
import type { ClientFactory, EngineSpec, RolloutEnvironment } from "./backend.ts";
import type { Taken, TaskCursor } from "./cursor.ts";
import type { CursorStore } from "./cursor-store.ts";
import type { DropReason, GroupLine, RolloutRequest, StreamLine, SummaryLine } from "./protocol.ts";

export interface RunDeps {
  env: RolloutEnvironment;
  makeClient: ClientFactory;
  cursors: CursorStore;
  /** Batch counters per train step, so refills of one step keep `group_index`/`index` unique. */
  counters: Map<number, SampleCounter>;
}

/** What one train request delivered, for `/release`. */
export interface RequestLedger {
  cursor: TaskCursor | null;
  /** The group lines written, in stream order: launch position and what the cursor handed out. */
  written: { seq: number; taken: Taken }[];
}

/** Resolves false once the client is gone (the line was not delivered). */
export type LineWriter = (line: StreamLine) => Promise<boolean>;

export function engineSpec(req: RolloutRequest): EngineSpec {
  return {
    url: req.engine_url,
    model: req.model,
    tokenizerPath: req.tokenizer_path,
    routingPolicy: req.routing_policy,
    lora: req.lora,
    maxContextLen: req.limits.max_context_len,
    maxPromptLen: req.limits.max_prompt_len,
    maxResponseLen: req.limits.max_response_len,
    skipSpecialTokens: req.skip_special_tokens,
    stopTokenIds: req.stop_token_ids,
    connections: Math.min(req.concurrency, 1024),
    chatTemplateKwargs: req.chat_template_kwargs,
  };
}

/** `slot`: the cursor's running index in train (so each epoch's run differs), the task index in eval. */
export function groupSeeds(req: RolloutRequest, slot: number): number[] | null {
  if (!req.deterministic || req.seed_base === null) return null;
  const base = req.seed_base + slot * req.n;
  return Array.from({ length: req.n }, (_, k) => base + k);
}

/**
 * Why a group trains nothing, or null. The episode's group-failure policy decided (retries.group):
 * a group it dropped is dropped here; one it shrank keeps its survivors (the excluded members
 * are masked by the conversion). A failed trace the policy never saw (no `group_failure` info)
 * drops its group, as `drop-group` would. Only the final attempt counts: a rollout retried into
 * success is trainable.
 */
function dropReason(traces: readonly TraceRecord[], group: readonly GroupElement[]): DropReason | null {
  const dropped = traces.some(
    (t) => groupOutcome(t) === "dropped" || (groupOutcome(t) === undefined && finalAttemptFailed(t)),
  );
  if (dropped && traces.some(finalAttemptFailed)) return "trace_error";
  if (
    dropped ||
    groupSamples(group).some(
      (s) => s.metadata.envroll.empty && s.metadata.envroll.group_failure !== "excluded",
    )
  )
    return "empty_trace";
  return null;
}

function message(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}

export async function runRollout(
  req: RolloutRequest,
  deps: RunDeps,
  write: LineWriter,
  outer: AbortSignal,
  ledger: RequestLedger = { cursor: null, written: [] },
): Promise<SummaryLine> {
  const started = performance.now();
  const train = !req.evaluation;
  const given = req.tasks ?? null;
  const controller = new AbortController();
  // Every group and rollout of the request listens on this one signal.
  setMaxListeners(0, controller.signal);
  const onOuter = () => controller.abort();
  if (outer.aborted) controller.abort();
  else outer.addEventListener("abort", onOuter, { once: true });
  const signal = controller.signal;

  const info = deps.env.info;
  let cursor: TaskCursor | null = null;
  let counter: SampleCounter;
  if (train && given === null) {
    cursor = await deps.cursors.open(req.rollout_id, req.cursor.mode, {
      tasksetId: info.tasksetId,
      numTasks: info.numTasks,
      shuffle: req.cursor.shuffle,
      seed: req.cursor.seed,
    });
    ledger.cursor = cursor;
    const kept = deps.counters.get(req.rollout_id);
    counter = req.cursor.mode === "continue" && kept ? kept : new SampleCounter();
    deps.counters.clear();
    deps.counters.set(req.rollout_id, counter);
  } else {
    counter = new SampleCounter();
  }
  const total = given ? given.length : train ? (req.count ?? 0) : info.numEvalTasks;
  const summary: SummaryLine = {
    type: "summary",
    rollout_id: req.rollout_id,
    evaluation: req.evaluation,
    requested: total,
    delivered: 0,
    aborted: 0,
    dropped: {},
    error: null,
    elapsed_s: 0,
    dialects: {},
    cursor: null,
  };

  const client = await deps.makeClient(engineSpec(req));
  const sampling = req.sampling as Sampling;
  const split = train ? "train" : "eval";

  const handBack = (taken: Taken) => {
    cursor?.giveBack(taken);
    summary.aborted++;
  };
  const convert = { rewardKey: req.reward_key, compact: req.compact, padTokenId: client.padTokenId ?? 0 };

  const runOne = async (seq: number, taken: Taken): Promise<void> => {
    const taskIndex = taken.task;
    let traces: TraceRecord[] | null = null;
    let episodeError: string | null = null;
    try {
      traces = await deps.env.runGroup({
        split,
        taskIndex,
        n: req.n,
        client,
        sampling,
        seeds: groupSeeds(req, taken.slot),
        concurrency: req.concurrency,
        signal,
      });
    } catch (err) {
      episodeError = message(err);
    }
    if (signal.aborted) return handBack(taken);
    let line: GroupLine;
    if (traces === null) {
      line = groupLine(req, taskIndex, seq, counter.nextGroupIndex++, [], "episode_error", episodeError);
    } else {
      let group: GroupElement[] | null = null;
      let conversion: string | null = null;
      try {
        group = tracesToGroup(traces, counter, convert);
      } catch (err) {
        if (!(err instanceof ConversionError)) {
          // A bug, not a property of this group's traces: stop the request loudly.
          summary.error ??= message(err);
          controller.abort();
          return handBack(taken);
        }
        // This group's traces cannot become samples (e.g. a fork without compact rollouts): it
        // fails alone, typed and counted; the other groups of the request are still good.
        conversion = err.message;
      }
      line =
        group === null
          ? groupLine(req, taskIndex, seq, counter.nextGroupIndex++, [], "conversion_error", conversion)
          : groupLine(
              req,
              taskIndex,
              seq,
              counter.nextGroupIndex - 1,
              group,
              dropReason(traces, group),
              null,
            );
    }
    if (!(await write(line))) {
      controller.abort();
      return handBack(taken);
    }
    cursor?.complete(taken);
    ledger.written.push({ seq, taken });
    summary.delivered++;
    for (const t of traces ?? [])
      for (const [d, n] of Object.entries((t.info["dialects"] ?? {}) as Record<string, number>))
        summary.dialects[d] = (summary.dialects[d] ?? 0) + n;
    if (line.drop_reason) summary.dropped[line.drop_reason] = (summary.dropped[line.drop_reason] ?? 0) + 1;
  };

  // Pulled only when a worker is free: taking from the cursor hands the task out.
  function* launches(): Generator<{ seq: number; taken: Taken }> {
    for (let seq = 0; seq < total; seq++)
      yield { seq, taken: given ? given[seq]! : cursor ? cursor.take() : { task: seq, slot: seq } };
  }
  const workers = Math.min(total, Math.floor(req.concurrency / req.n));
  try {
    await runPulled(launches(), workers, ({ seq, taken }) => runOne(seq, taken), signal);
  } finally {
    outer.removeEventListener("abort", onOuter);
    if (signal.aborted) await client.abort().catch(() => {});
    await client.close().catch(() => {});
  }
  if (cursor) {
    const file = await deps.cursors.save(cursor);
    const s = cursor.state;
    summary.cursor = {
      epoch: s.epoch,
      offset: s.offset,
      returned: s.returned.length,
      completed_total: s.completed_total,
      file,
    };
  }
  summary.elapsed_s = (performance.now() - started) / 1000;
  return summary;
}

function groupLine(
  req: RolloutRequest,
  taskIndex: number,
  seq: number,
  groupIndex: number,
  group: GroupElement[],
  drop: DropReason | null,
  error: string | null,
): GroupLine {
  return {
    type: "group",
    rollout_id: req.rollout_id,
    evaluation: req.evaluation,
    task_index: taskIndex,
    seq,
    group_index: groupIndex,
    group,
    drop_reason: drop,
    error,
  };
}
