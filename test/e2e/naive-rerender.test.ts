/**
 * The negative side of the end-to-end check, fast and without Python: why re-rendering the final
 * conversation (what non-token-exact stacks do, `e2e/naive.ts`) yields samples that a
 * teacher-forced logprob check must reject, while the production converter's samples pass.
 *
 * The "teacher" here is the engine itself, recorded: every (prompt ids + sampled prefix) → next
 * sampled id and its logprob, exactly as the engine saw and returned them. A sample passes when
 * every loss-masked token sits on a context the engine really sampled it in, with that logprob —
 * the same property `envroll_engine.train_check` verifies by re-running the model. The full
 * check with the real tiny model is phase 2 of `npm run e2e`.
 *
 * The policy thinks before each guess. Qwen3's template drops earlier turns' `<think>` blocks,
 * so a re-rendering of turn 1 differs from what was sampled and every later turn's context with it.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { naiveGroups } from "../../e2e/naive.ts";
import { toMilesGroups } from "../../e2e/rollouts.ts";
import type { Client, ModelRequest, ModelResponse } from "../../packages/core/src/clients/client.ts";
import type { TrainClient } from "../../packages/core/src/clients/train.ts";
import { loadEnvironment } from "../../packages/core/src/environment.ts";
import { loadConfig } from "../../packages/core/src/loaders/config.ts";
import { ConversionError } from "../../packages/core/src/miles/convert.ts";
import type { MilesSample } from "../../packages/core/src/miles/sample.ts";
import { createRenderer } from "../../packages/core/src/renderers/index.ts";
import type { TraceRecord } from "../../packages/core/src/trace/record.ts";
import { type EngineHandle, startEngine } from "../../packages/engine/src/index.ts";
import { qwen3TrainClient } from "../clients/qwen3-client.ts";

/** Records what the engine was given and what it sampled, turn by turn. */
class RecordingClient implements Client {
  readonly kind = "train" as const;
  /**
   * key: prompt + sampled prefix ids → every [next sampled id, its logprob] seen there. A list:
   * the built-in engine's logprobs are seeded per request, not a function of the context, so the
   * rollouts of a group that share a turn-1 prompt record different values for it.
   */
  readonly sampled = new Map<string, [number, number][]>();
  constructor(readonly inner: TrainClient) {}
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    const r = await this.inner.getResponse(request);
    const t = r.tokens!;
    const ctx = t.promptIds.slice();
    t.completionIds.forEach((id, j) => {
      const key = ctx.join(",");
      this.sampled.set(key, [...(this.sampled.get(key) ?? []), [id, t.completionLogprobs[j]!]]);
      ctx.push(id);
    });
    return r;
  }
  abort(sessionId?: string): Promise<void> {
    return this.inner.abort(sessionId);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

/**
 * Loss-masked tokens at absolute positions [from, to) whose context + id + logprob is not what
 * the engine sampled; `checked` counts the masked tokens looked at.
 */
function mismatches(
  s: MilesSample,
  sampled: Map<string, [number, number][]>,
  from = 0,
  to = Number.POSITIVE_INFINITY,
): { bad: number; checked: number } {
  const start = s.tokens.length - s.response_length;
  let bad = 0;
  let checked = 0;
  s.loss_mask.forEach((m, i) => {
    const at = start + i;
    if (!m || at < from || at >= to) return;
    checked++;
    const seen = sampled.get(s.tokens.slice(0, at).join(",")) ?? [];
    const lp = s.rollout_log_probs[i]!;
    if (!seen.some(([id, x]) => id === s.tokens[at] && Math.abs(x - lp) < 1e-4)) bad++;
  });
  return { bad, checked };
}

/** First position where two id sequences differ. */
function divergence(a: readonly number[], b: readonly number[]): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

const CONFIG = `
model = "Qwen/Qwen3-0.6B"
num_tasks = 2
num_rollouts = 2
max_turns = 3
[taskset]
id = "guess-number"
[sampling]
temperature = 1.0
max_tokens = 64
`;

const guess = (promptIds: readonly number[]) => `<guess>${10 + (promptIds.length % 80)}</guess>`;

let thinking: EngineHandle;
let plain: EngineHandle;
before(async () => {
  [thinking, plain] = await Promise.all([
    startEngine({
      policy: (ctx) =>
        `<think>\nStill ${ctx.promptIds.length % 7} candidates to rule out; bisect.\n</think>\n\n` +
        guess(ctx.promptIds),
    }),
    startEngine({ policy: (ctx) => guess(ctx.promptIds) }),
  ]);
});
after(async () => {
  await Promise.all([thinking.close(), plain.close()]);
});

async function rollouts(
  bridge: boolean,
  engine = thinking,
): Promise<{ groups: TraceRecord[][]; client: RecordingClient }> {
  const env = await loadEnvironment(await loadConfig(CONFIG));
  const client = new RecordingClient(qwen3TrainClient(engine.url, {}, { bridge }));
  try {
    const groups = await Promise.all(env.tasks.map((_, i) => env.runGroup(i, 2, { client })));
    return { groups, client };
  } finally {
    await env.close();
  }
}

test("bridged samples are exactly what was sampled; naive re-rendered ones are not", async () => {
  const { groups, client } = await rollouts(true);
  assert.ok(client.inner.counts.bridged > 0);
  assert.ok(groups.flat().every((t) => t.errors.length === 0 && t.num_turns === 3));

  const exact = toMilesGroups(groups);
  let masked = 0;
  for (const s of exact.flat()) {
    masked += s.loss_mask.reduce((a, b) => a + b, 0);
    const m = mismatches(s, client.sampled);
    assert.equal(m.bad, 0, `exact sample ${s.index} diverged from what was sampled`);
  }
  assert.ok(masked > 0);

  const naive = naiveGroups(groups, exact, createRenderer("qwen3"));
  assert.equal(naive.stats.identical, 0, "re-rendering reproduced the sampled ids");
  for (const s of naive.groups.flat()) {
    assert.ok(mismatches(s, client.sampled).bad > 0, `naive sample ${s.index} passed the check`);
  }
  await client.close();
});

test("bridge off: the re-rendered turns fork the trace, and the converter refuses rather than glue them", async () => {
  const { groups, client } = await rollouts(false);
  assert.equal(client.inner.counts.bridged, 0);
  assert.ok(
    groups.flat().every((t) => t.branches.length > 1),
    "a re-rendered history must fork the graph",
  );
  assert.throws(() => toMilesGroups(groups), ConversionError);
  await client.close();
});

test("control: naive samples are right up to where the re-rendering diverges, wrong from there", async () => {
  // Without <think> the only change is Qwen3's empty think block on the final assistant turn.
  // Every masked token before the first re-rendered id that differs must pass the same check, so
  // the failures come from the re-rendering, not from how naive.ts attaches the logprobs.
  const { groups, client } = await rollouts(true, plain);
  const exact = toMilesGroups(groups);
  const naive = naiveGroups(groups, exact, createRenderer("qwen3"));
  const pairs = naive.groups.flat().map((s, k) => [s, exact.flat()[k]!] as const);
  for (const [s, e] of pairs) {
    const d = divergence(s.tokens, e.tokens);
    const before = mismatches(s, client.sampled, 0, d);
    assert.equal(before.bad, 0, `naive sample ${s.index} is wrong before it diverges (at ${d})`);
    assert.ok(before.checked > 0, "turns before the divergence carry loss-masked tokens");
    assert.ok(mismatches(s, client.sampled, d).bad > 0, `naive sample ${s.index} passed after diverging`);
  }
  await client.close();
});
