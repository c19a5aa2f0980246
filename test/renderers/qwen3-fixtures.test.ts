import assert from "node:assert/strict";
import { test } from "node:test";
import { expectedRenderIds, loadCases, plain, rendererFor } from "./fixture-cases.ts";

for (const { source, cases } of loadCases()) {
  const name = source.split("/").pop();
  test(`${name}: render cases`, () => {
    let n = 0;
    for (const c of cases.filter((x) => x.kind === "render")) {
      const r = rendererFor(c);
      const got = r.render(c.messages, {
        tools: c.tools,
        addGenerationPrompt: c.add_generation_prompt,
        ...(c.enable_thinking === null || c.enable_thinking === undefined
          ? {}
          : { enableThinking: c.enable_thinking }),
      });
      const want = expectedRenderIds(c);
      assert.deepEqual(got.tokenIds, want, `${c.id}: ids`);
      const py = c.renderer;
      assert.deepEqual(got.messageRoles, py.message_roles, `${c.id}: roles`);
      assert.deepEqual(got.messageToolNames, py.message_tool_names, `${c.id}: tool names`);
      // Attribution is the Python renderer's; where its ids deviate from HF it cannot apply.
      if (
        py.token_ids.length === want.length &&
        py.token_ids.every((v: number, k: number) => v === want[k])
      ) {
        assert.deepEqual(got.messageIndices, py.message_indices, `${c.id}: message_indices`);
        assert.deepEqual(got.sampledMask, py.sampled_mask, `${c.id}: sampled_mask`);
        assert.deepEqual(got.isContent, py.is_content, `${c.id}: is_content`);
      } else {
        assert.equal(got.messageIndices.length, want.length);
      }
      n++;
    }
    assert.ok(n > 0 || !name?.includes("visible"));
  });

  test(`${name}: bridge cases`, () => {
    for (const c of cases.filter((x) => x.kind === "bridge")) {
      const r = rendererFor(c);
      const got = r.bridge(c.prev_prompt_ids, c.prev_completion_ids, c.new_messages, { tools: c.tools });
      if (c.result === null) {
        assert.equal(got, null, `${c.id}: expected null`);
        continue;
      }
      assert.ok(got, `${c.id}: expected a bridge`);
      assert.deepEqual(got.tokenIds, c.result.token_ids, `${c.id}: ids`);
      assert.deepEqual(got.messageIndices, c.result.message_indices, `${c.id}: message_indices`);
      assert.deepEqual(got.sampledMask, c.result.sampled_mask, `${c.id}: sampled_mask`);
      assert.deepEqual(got.isContent, c.result.is_content, `${c.id}: is_content`);
      assert.deepEqual(got.messageRoles, c.result.message_roles, `${c.id}: roles`);
      assert.deepEqual(got.messageToolNames, c.result.message_tool_names, `${c.id}: tool names`);
    }
  });

  test(`${name}: parse cases`, () => {
    for (const c of cases.filter((x) => x.kind === "parse")) {
      const r = rendererFor(c);
      const got = r.parse(c.completion_ids, { tools: c.tools });
      const want = c.parsed;
      assert.equal(got.content, want.content, `${c.id}: content`);
      assert.equal(got.reasoningContent, want.reasoning_content, `${c.id}: reasoning`);
      assert.deepEqual(
        plain(
          got.toolCalls.map((t) => ({
            raw: t.raw,
            name: t.name,
            arguments: t.arguments,
            token_span: t.tokenSpan,
            status: t.status,
            id: t.id,
          })),
        ),
        plain(want.tool_calls),
        `${c.id}: tool calls`,
      );
    }
  });
}
