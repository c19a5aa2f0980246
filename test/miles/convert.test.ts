import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  branchToSample,
  ConversionError,
  SampleCounter,
  tracesToGroup,
} from "../../packages/core/src/miles/convert.ts";
import { groupSamples, type MilesSample, sampleViolations } from "../../packages/core/src/miles/sample.ts";
import { branch, multiTurnBranch, trace, twoBranches } from "./traces.ts";

describe("trace → Miles sample", () => {
  it("the task's system prompt is part of the Miles prompt, as the model saw it", () => {
    const data = { idx: 0, system_prompt: "Be terse.", prompt: "hi", answer: "42" };
    const s = branchToSample(trace({ task: { type: "Task", data } }), 0);
    assert.deepEqual(s.prompt, [
      { role: "system", content: "Be terse." },
      { role: "user", content: "hi" },
    ]);
    // Without one, the prompt is passed on as the task gave it.
    const plain = branchToSample(trace({ task: { type: "Task", data: { idx: 0, prompt: "hi" } } }), 0);
    assert.equal(plain.prompt, "hi");
  });

  it("multi-turn bridged branch: prompt prefix, 0s over tool-response tokens, aligned arrays", () => {
    const t = trace({ branches: [multiTurnBranch()], num_turns: 2 });
    const s = branchToSample(t, 0);
    assert.deepEqual(s.tokens, [1, 2, 3, 4, 10, 11, 12, 20, 21, 22, 23, 13, 14]);
    assert.equal(s.response_length, 9);
    assert.deepEqual(s.loss_mask, [1, 1, 1, 0, 0, 0, 0, 1, 1]);
    assert.equal(s.rollout_log_probs.length, 9);
    assert.deepEqual(
      s.rollout_log_probs.map((x) => Number(x.toFixed(2))),
      [-0.5, -0.6, -0.7, 0, 0, 0, 0, -1.2, -1.3],
    );
    assert.deepEqual(sampleViolations(s), []);
    assert.deepEqual(s.weight_versions, ["v1"]);
    assert.equal(s.routing_key, t.id);
    assert.equal(s.status, "completed");
    assert.equal(s.label, "42");
    assert.equal(s.response, "done");
    assert.deepEqual(s.prompt, [{ role: "user", content: "hi" }]);
    assert.equal(s.metadata.envroll.task_index, 0);
    assert.equal(s.metadata.envroll.stop_condition, "agent_completed");
    assert.equal(s.spec_info.completion_token_num, 5);
  });

  it("forces 0.0 logprobs on unsampled response tokens", () => {
    const b = multiTurnBranch();
    b.logprobs = b.logprobs.map(() => -9);
    const s = branchToSample(trace({ branches: [b] }), 0);
    assert.deepEqual(s.rollout_log_probs, [-9, -9, -9, 0, 0, 0, 0, -9, -9]);
  });

  it("statuses: failed beats truncated beats completed", () => {
    const failed = trace({ errors: [{ type: "ToolsetError", message: "boom" }], is_truncated: true });
    const truncated = trace({ is_truncated: true, stop_condition: "max_turns" });
    const c = new SampleCounter();
    const [a, b, d] = groupSamples(tracesToGroup([failed, truncated, trace()], c));
    assert.equal(a!.status, "failed");
    assert.equal(a!.metadata.envroll.error, "ToolsetError: boom");
    assert.equal(b!.status, "truncated");
    assert.equal(d!.status, "completed");
    assert.equal(d!.metadata.envroll.error, undefined);
  });

  it("reward: the trace reward, or {...rewards, reward} with a reward key", () => {
    const t = trace({ reward: 0.75, rewards: { a: 0.5, b: 0.25 } });
    assert.equal(branchToSample(t, 0).reward, 0.75);
    assert.deepEqual(branchToSample(t, 0, { rewardKey: "a" }).reward, { a: 0.5, b: 0.25, reward: 0.75 });
  });

  it("group_index and index are unique across groups of one batch", () => {
    const c = new SampleCounter();
    const g1 = tracesToGroup([trace(), trace()], c);
    const g2 = tracesToGroup([trace(), trace()], c);
    const all = [...groupSamples(g1), ...groupSamples(g2)];
    assert.deepEqual(
      all.map((s) => s.index),
      [0, 1, 2, 3],
    );
    assert.deepEqual(
      all.map((s) => s.group_index),
      [0, 0, 1, 1],
    );
    assert.ok(all.every((s) => s.rollout_id === null));
  });

  it("several branches: explicit error unless compact rollouts are enabled", () => {
    const two = trace({
      branches: [
        branch([
          [[1], false],
          [[2, 3], true],
        ]),
        branch([
          [[5], false],
          [[6], true],
        ]),
      ],
    });
    const c = new SampleCounter();
    assert.throws(
      () => tracesToGroup([trace(), two], c),
      (e: unknown) => {
        assert.ok(e instanceof ConversionError);
        assert.match(e.message, /2 branches.*compact rollouts/);
        return true;
      },
    );
    // The failed conversion consumed no index.
    assert.equal(c.nextIndex, 0);
    assert.equal(c.nextGroupIndex, 0);
    const group = tracesToGroup([trace(), two], c, { compact: true });
    assert.equal(group.length, 2);
    const compact = group[1] as MilesSample[];
    assert.ok(Array.isArray(compact));
    assert.equal(compact.length, 2);
    assert.equal(compact[0]!.rollout_id, 1);
    assert.equal(compact[1]!.rollout_id, 1);
    assert.deepEqual(
      compact.map((s) => s.index),
      [1, 2],
    );
    assert.deepEqual(
      compact.map((s) => s.metadata.envroll.branch_index),
      [0, 1],
    );
    assert.equal(compact[0]!.reward, compact[1]!.reward);
    assert.deepEqual(compact[1]!.tokens, [5, 6]);
    assert.equal(compact[1]!.response_length, 1);
  });

  it("a compact sibling's response is its branch's last reply stripped like Python's str.strip", () => {
    // \x1c–\x1f are whitespace to str.strip (trace.last_reply) but not to String.prototype.trim.
    const reply = (content: string) => ({
      parent: 0,
      message: { role: "assistant" as const, content },
      sampled: true,
      timestamp: 0,
    });
    const two = trace({
      nodes: [
        { parent: null, message: { role: "user", content: "q" }, sampled: false, timestamp: 0 },
        reply("\x1c first \x1f"),
        reply("\u2028second\x1e"),
      ],
      branches: [
        {
          ...branch([
            [[1], false],
            [[2, 3], true],
          ]),
          node_indices: [0, 1],
        },
        {
          ...branch([
            [[5], false],
            [[6], true],
          ]),
          node_indices: [0, 2],
        },
      ],
    });
    const group = tracesToGroup([two], new SampleCounter(), { compact: true });
    assert.deepEqual(
      (group[0] as MilesSample[]).map((s) => s.response),
      ["first", "second"],
    );
  });

  it("a trace with no sampled token becomes a failed, removable sample with one masked pad token", () => {
    // Miles slices tokens[-response_length:]: a zero-length response would be the whole sequence.
    const noBranch = trace({
      branches: [],
      errors: [{ type: "ProviderError", message: "refused" }],
      num_turns: 0,
    });
    const promptOnly = trace({ branches: [branch([[[1, 2, 3], false]])] });
    const c = new SampleCounter();
    const [a, b] = groupSamples(tracesToGroup([noBranch, promptOnly], c, { padTokenId: 7 }));
    for (const s of [a, b]) {
      assert.equal(s!.status, "failed");
      assert.equal(s!.response_length, 1);
      assert.deepEqual(s!.loss_mask, [0]);
      assert.deepEqual(s!.rollout_log_probs, [0]);
      assert.equal(s!.remove_sample, true);
      assert.equal(s!.metadata.envroll.empty, true);
      assert.deepEqual(sampleViolations(s!), []);
    }
    // The trainer scores the response from the position before it: a pad stands in for no prompt.
    assert.deepEqual(a!.tokens, [7, 7]);
    assert.deepEqual(b!.tokens, [1, 2, 3, 7]);
    assert.equal(a!.metadata.envroll.error, "ProviderError: refused");
    assert.equal(a!.metadata.envroll.error_type, "ProviderError");
    assert.equal(b!.metadata.envroll.error_type, "EmptyTrace");
  });

  it("compact rollouts: every element of every group is a list, one-branch and empty traces too", () => {
    // Miles flattens level by level judging by the first element, so a mix of Sample and
    // list[Sample] crashes its postprocess_rollout_data.
    const two = trace({
      branches: [
        branch([
          [[1, 2], false],
          [[3], true],
        ]),
        branch([
          [[5], false],
          [[6], true],
        ]),
      ],
    });
    const c = new SampleCounter();
    const group = tracesToGroup([trace(), two, trace({ branches: [] })], c, { compact: true });
    assert.ok(group.every((e) => Array.isArray(e)));
    assert.deepEqual(
      group.map((e) => (e as MilesSample[]).length),
      [1, 2, 1],
    );
    const ids = group.map((e) => (e as MilesSample[]).map((s) => s.rollout_id));
    assert.deepEqual(ids, [[0], [1, 1], [3]]);
    assert.deepEqual(sampleViolations((group[2] as MilesSample[])[0]!), []);
  });

  it("prefix-cache info: the engine's cached tokens over every turn's prompt tokens, once per trace", () => {
    const usage = { prompt_tokens: 40, completion_tokens: 9, total_tokens: 49, cached_tokens: 30 };
    const s = branchToSample(trace({ usage }), 0);
    assert.deepEqual(s.prefix_cache_info, { cached_tokens: 30, total_prompt_tokens: 40 });
    const two = trace({ usage, branches: twoBranches() });
    const [first, second] = tracesToGroup([two], new SampleCounter(), { compact: true })[0] as MilesSample[];
    assert.deepEqual(first!.prefix_cache_info, { cached_tokens: 30, total_prompt_tokens: 40 });
    assert.deepEqual(second!.prefix_cache_info, { cached_tokens: 0, total_prompt_tokens: 0 });
    const none = branchToSample(
      trace({ usage: { prompt_tokens: 4, completion_tokens: 1, total_tokens: 5 } }),
      0,
    );
    assert.equal(none.prefix_cache_info.cached_tokens, 0);
  });

  it("rejects a misaligned branch with a ConversionError", () => {
    const b = branch([
      [[1], false],
      [[2], true],
    ]);
    b.logprobs.pop();
    assert.throws(() => branchToSample(trace({ branches: [b] }), 0), ConversionError);
  });

  it("sample dicts carry Miles' full Sample field list", () => {
    const s = branchToSample(trace(), 0);
    assert.deepEqual(
      Object.keys(s).sort(),
      [
        "adapter",
        "group_index",
        "index",
        "label",
        "loss_mask",
        "metadata",
        "multimodal_inputs",
        "multimodal_train_inputs",
        "non_generation_time",
        "opd_reverse_kl",
        "prefix_cache_info",
        "prompt",
        "remove_sample",
        "response",
        "response_length",
        "reward",
        "reward_spec",
        "rollout_id",
        "rollout_indexer_topk",
        "rollout_log_probs",
        "rollout_routed_experts",
        "routing_key",
        "spec_info",
        "status",
        "teacher_log_probs",
        "tokens",
        "train_metadata",
        "weight_versions",
        "generate_function_path",
      ].sort(),
    );
  });
});
