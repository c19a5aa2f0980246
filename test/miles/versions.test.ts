/**
 * Episodes that outlived a weight update: which version sampled which turn (the version spans
 * the trainer teacher-forces by), and what `partial_rollout` hands the trainer for them.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { loadConfig } from "../../packages/core/src/loaders/config.ts";
import { branchToSample } from "../../packages/core/src/miles/convert.ts";
import type { MilesSample } from "../../packages/core/src/miles/sample.ts";
import { applyVersionPolicy, versionSpans } from "../../packages/core/src/miles/versions.ts";
import type { BranchRecord } from "../../packages/core/src/trace/record.ts";
import { branch, trace } from "./traces.ts";

/** Prompt; turn 1 sampled by v3; a bridged user reply; turn 2 by v4 (after the update). */
function spanningBranch(): BranchRecord {
  const b = branch([
    [[1, 2, 3], false],
    [[10, 11, 12], true],
    [[20, 21], false],
    [[13, 14], true],
  ]);
  b.weight_versions = b.sampled_mask.map((s, i) => (!s ? null : i < 6 ? "3" : "4"));
  return b;
}

function sample(b: BranchRecord): MilesSample {
  return branchToSample(trace({ branches: [b] }), 0);
}

test("a two-version episode: Miles' weight_versions per turn, spans over the response by version", () => {
  const s = sample(spanningBranch());
  assert.deepEqual(s.weight_versions, ["3", "4"]);
  // Response = positions 3.. of the branch: [10 11 12 | 20 21 | 13 14].
  assert.deepEqual(s.metadata.envroll.version_spans, [
    [0, 3, "3"],
    [5, 7, "4"],
  ]);
  assert.deepEqual(s.loss_mask, [1, 1, 1, 0, 0, 1, 1]);
  // Each turn keeps the logprobs its own version reported (the fixture's −0.1·(position+1)).
  assert.deepEqual(
    s.rollout_log_probs.map((x) => Number(x.toFixed(2))),
    [-0.4, -0.5, -0.6, 0, 0, -0.9, -1],
  );
});

test("one version: one span; two turns of one version merge across the unsampled tokens", () => {
  const b = branch([
    [[1], false],
    [[10], true],
    [[20], false],
    [[11], true],
  ]);
  assert.deepEqual(versionSpans(b, 1), [[0, 3, "v1"]]);
});

function batch(): MilesSample[][] {
  const mixed = sample(spanningBranch());
  const fresh = sample(
    branch(
      [
        [[1], false],
        [[10, 11], true],
      ],
      "4",
    ),
  );
  const old = sample(
    branch(
      [
        [[1], false],
        [[10, 11], true],
      ],
      "1",
    ),
  );
  return [[mixed, fresh], [old]];
}

const policy = (over: Record<string, unknown>) => ({
  mixed_versions: "keep" as const,
  max_staleness: null,
  over_staleness: "drop" as const,
  ...over,
});

test("mixed_versions keep: every turn trains", () => {
  const r = applyVersionPolicy(batch(), "4", policy({}));
  assert.equal(r.counts.mixed, 1);
  assert.deepEqual(r.groups[0]![0]!.loss_mask, [1, 1, 1, 0, 0, 1, 1]);
  assert.equal(r.groups[0]![0]!.remove_sample, false);
});

test("mixed_versions mask: only the current version's turns stay in the loss mask", () => {
  const r = applyVersionPolicy(batch(), "4", policy({ mixed_versions: "mask" }));
  assert.deepEqual(r.groups[0]![0]!.loss_mask, [0, 0, 0, 0, 0, 1, 1]);
  assert.equal(r.counts.masked_out_tokens, 3);
  // Single-version samples are untouched, even when stale (staleness is its own bound).
  assert.deepEqual(r.groups[0]![1]!.loss_mask, [1, 1]);
  assert.deepEqual(r.groups[1]![0]!.loss_mask, [1, 1]);
});

test("mixed_versions drop: the mixed sample leaves the loss but stays in its group", () => {
  const r = applyVersionPolicy(batch(), "4", policy({ mixed_versions: "drop" }));
  assert.equal(r.groups[0]!.length, 2);
  assert.equal(r.groups[0]![0]!.remove_sample, true);
  assert.equal(r.groups[0]![1]!.remove_sample, false);
  assert.equal(r.counts.dropped_mixed, 1);
});

test("max_staleness: a group lagging more versions than allowed leaves the batch, counted", () => {
  const r = applyVersionPolicy(batch(), "4", policy({ max_staleness: 1 }));
  assert.deepEqual(r.stale, [1]); // the v1 group lags 3 versions; the v3/v4 one lags 1
  assert.equal(r.groups.length, 1);
  assert.equal(r.counts.stale_groups, 1);
  assert.equal(applyVersionPolicy(batch(), "4", policy({ max_staleness: 3 })).stale.length, 0);
});

test("max_staleness needs integer versions and says so", () => {
  const b = [
    [
      sample(
        branch(
          [
            [[1], false],
            [[10], true],
          ],
          "v1",
        ),
      ),
    ],
  ];
  assert.throws(
    () => applyVersionPolicy(b, "v2", policy({ max_staleness: 1 })),
    /integer weight versions.*"v2"/,
  );
});

test("partial_rollout keys are in the config schema, with key-path errors", async () => {
  const ok = await loadConfig(
    '[taskset]\nid = "reverse-text"\n[partial_rollout]\nmixed_versions = "mask"\nmax_staleness = 2\nover_staleness = "rerun"\n',
  );
  assert.deepEqual(ok.partial_rollout, { mixed_versions: "mask", max_staleness: 2, over_staleness: "rerun" });
  const dflt = await loadConfig('[taskset]\nid = "reverse-text"\n');
  assert.deepEqual(dflt.partial_rollout, {
    mixed_versions: "keep",
    max_staleness: null,
    over_staleness: "drop",
  });
  await assert.rejects(
    loadConfig('[taskset]\nid = "reverse-text"\n[partial_rollout]\nmixed_versions = "sometimes"\n'),
    /partial_rollout\.mixed_versions/,
  );
});
