/**
 * An agent's own token cap (Claude Code sends max_tokens 32000) that asks more than the
 * context leaves: an endpoint that refuses it is asked again without the program's cap, so the
 * turn is sampled instead of the rollout stopping with context_length. A cap from the config is
 * the environment's and is never dropped.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { OverlongPromptError } from "../../packages/core/src/errors.ts";
import { RolloutSession } from "../../packages/core/src/interception/session.ts";
import { noLimits } from "../../packages/core/src/limits.ts";
import { Trace } from "../../packages/core/src/trace/trace.ts";
import type { TaskData } from "../../packages/core/src/types.ts";
import { ScriptedClient, say } from "../runtime/helpers/scripted-client.ts";

/** An endpoint with 1000 tokens of room: a larger cap is refused as a provider would. */
function endpoint() {
  return new ScriptedClient((_messages, request) => {
    const cap = request.sampling.max_tokens;
    if (cap !== undefined && cap > 1000)
      throw new OverlongPromptError(`max_tokens ${cap} exceeds the context`, 0, 0);
    return say("ok");
  });
}

function session(client: ScriptedClient, configCap?: number) {
  const task: TaskData = { idx: 0, prompt: "q" };
  const trace = new Trace(task);
  const s = new RolloutSession({
    task,
    handlers: {},
    trace,
    client,
    model: "m",
    sampling: configCap === undefined ? {} : { max_tokens: configCap },
    limits: noLimits,
    runtime: null,
    tools: [],
    user: null,
    signal: new AbortController().signal,
  });
  return { s, trace };
}

const user = [{ role: "user" as const, content: "q" }];

test("the program's max_tokens above what the context leaves: asked again without it", async () => {
  const client = endpoint();
  const { s, trace } = session(client);
  const r = await s.complete(user, [], { max_tokens: 32000 });
  assert.equal(r.kind, "completion");
  assert.equal(trace.numTurns, 1);
  assert.equal(trace.stopCondition, null);
  assert.deepEqual(
    client.requests.map((q) => q.sampling.max_tokens),
    [32000, undefined],
  );
});

test("a cap the program asked for that fits is kept; a config cap is never dropped", async () => {
  const fits = endpoint();
  await session(fits).s.complete(user, [], { max_tokens: 500 });
  assert.deepEqual(
    fits.requests.map((q) => q.sampling.max_tokens),
    [500],
  );
  const configured = endpoint();
  const { s, trace } = session(configured, 4000);
  const r = await s.complete(user, [], { max_tokens: 32000 });
  assert.deepEqual(r, { kind: "stopped", reason: "context_length" });
  assert.equal(trace.stopCondition, "context_length");
  assert.equal(configured.requests.length, 1);
});
