import assert from "node:assert/strict";
import { test } from "node:test";
import { expandBridged } from "../../packages/core/src/renderers/common/bridge.ts";
import {
  contentTokenSpansByRole,
  messageTokenSpans,
  roleTokenSpans,
  tokensByRole,
  tokensPerMessage,
} from "../../packages/core/src/renderers/common/token-spans.ts";
import type { RenderedTokens } from "../../packages/core/src/renderers/renderer.ts";
import { type Case, casesOf, plain, rendererFor } from "./fixture-cases.ts";

function derived(r: RenderedTokens) {
  return plain({
    tokens_per_message: tokensPerMessage(r),
    tokens_per_message_sampled_only: tokensPerMessage(r, { sampledOnly: true }),
    message_token_spans: messageTokenSpans(r),
    role_token_spans: roleTokenSpans(r),
    tokens_by_role: tokensByRole(r),
    tokens_by_role_sampled_only: tokensByRole(r, { sampledOnly: true }),
    content_token_spans_by_role: contentTokenSpansByRole(r),
  });
}

test("span helpers equal the Python renderer's derived records (visible battery)", () => {
  const cases: Case[] = casesOf("qwen3_visible.json");
  let n = 0;
  for (const c of cases) {
    if (
      c.kind === "render" &&
      c.renderer.token_ids.join() === (c.hf.token_ids ?? c.renderer.token_ids).join()
    ) {
      const got = rendererFor(c).render(c.messages, {
        tools: c.tools,
        addGenerationPrompt: c.add_generation_prompt,
        ...(c.enable_thinking == null ? {} : { enableThinking: c.enable_thinking }),
      });
      assert.deepEqual(derived(got), plain(c.renderer.derived), c.id);
      n++;
    } else if (c.kind === "bridge" && c.result) {
      const got = rendererFor(c).bridge(c.prev_prompt_ids, c.prev_completion_ids, c.new_messages, {
        tools: c.tools,
      });
      assert.ok(got);
      assert.deepEqual(derived(expandBridged(got)), plain(c.result.derived), c.id);
      n++;
    }
  }
  assert.ok(n > 20);
});
