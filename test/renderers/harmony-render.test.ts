/**
 * gpt-oss renders equal HF transformers' apply_chat_template with the gpt-oss checkpoint's own
 * template on every golden (tools of every schema shape, tool calls, tool results, reasoning,
 * multi-turn, the template's variables), raise where the template raises, attribute every
 * token, and a gpt-oss checkpoint folder gets this renderer.
 */
import assert from "node:assert/strict";
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { createRenderer, GptOssRenderer } from "../../packages/core/src/renderers/index.ts";
import { goldens, gptOssCheckpoint, gptOssTokenizer, rendererFor } from "./harmony-fixtures.ts";

// The template raises on these; envroll writes them as harmony does (see renderers/harmony/render.ts).
const RENDERED_WHERE_HF_RAISES: Record<string, string> = {
  "gpt-oss-content_and_thinking_on_call":
    "<|start|>user<|message|>q<|end|><|start|>assistant<|channel|>analysis<|message|>t<|end|>" +
    "<|start|>assistant<|channel|>commentary<|message|>c<|end|><|start|>assistant to=functions.get_time" +
    "<|channel|>commentary json<|message|>{}<|call|><|start|>assistant",
};

test(`gpt-oss: render ids equal HF apply_chat_template on the goldens`, () => {
  let compared = 0;
  for (const c of goldens.render) {
    if (c.hf.error !== null || RENDERED_WHERE_HF_RAISES[c.id]) continue;
    const got = rendererFor(c).render(c.messages, {
      tools: c.tools,
      addGenerationPrompt: c.add_generation_prompt,
    });
    assert.deepEqual(got.tokenIds, c.hf.token_ids, c.id);
    assert.equal(gptOssTokenizer().decode(got.tokenIds), c.hf.text, c.id);
    compared++;
  }
  assert.ok(compared >= 100, `${compared} cases compared`);
  const covered = (s: string) => goldens.render.filter((c) => c.hf.text?.includes(s)).length;
  for (const s of ["<|call|>", "<|return|>", "<|channel|>analysis", "type nested", "to=assistant"])
    assert.ok(covered(s) >= 10, `goldens with ${s}: ${covered(s)}`);
});

test("gpt-oss: where the template raises, the renderer raises naming the message (or renders harmony's form)", () => {
  const raising = goldens.render.filter((c) => c.hf.error !== null);
  assert.ok(raising.length >= 4);
  for (const c of raising) {
    const render = () =>
      rendererFor(c).render(c.messages, { tools: c.tools, addGenerationPrompt: c.add_generation_prompt });
    const expected = RENDERED_WHERE_HF_RAISES[c.id];
    if (expected) assert.ok(gptOssTokenizer().decode(render().tokenIds).endsWith(expected), c.id);
    else assert.throws(render, /gpt-oss render: messages\[\d+\]/, c.id);
  }
});

test("gpt-oss: attribution — only assistant turns are sampled, from after their opening <|start|>assistant", () => {
  const tok = gptOssTokenizer();
  for (const c of goldens.render) {
    if (c.hf.error !== null) continue;
    const r = rendererFor(c).render(c.messages, {
      tools: c.tools,
      addGenerationPrompt: c.add_generation_prompt,
    });
    const n = r.tokenIds.length;
    assert.equal(r.messageIndices.length, n);
    assert.equal(r.sampledMask.length, n);
    assert.equal(r.isContent.length, n);
    assert.equal(r.messageRoles.length, c.messages.length);
    for (let k = 0; k < n; k++) {
      const idx = r.messageIndices[k]!;
      const role = idx >= 0 ? c.messages[idx]!.role : null;
      if (role !== "assistant") assert.equal(r.sampledMask[k], false, `${c.id} token ${k} (${role})`);
      else assert.equal(r.isContent[k], r.sampledMask[k], `${c.id} token ${k}`);
    }
    // Each assistant message: its first token is the unsampled <|start|>, all later ones sampled.
    c.messages.forEach((m, i) => {
      if (m.role !== "assistant") return;
      const ks = r.messageIndices.flatMap((idx, k) => (idx === i ? [k] : []));
      assert.equal(tok.decode(ks.slice(0, 2).map((k) => r.tokenIds[k]!)), "<|start|>assistant", c.id);
      assert.deepEqual(
        ks.map((k) => r.sampledMask[k]),
        ks.map((_, j) => j >= 2),
        `${c.id} message ${i}`,
      );
    });
    if (c.add_generation_prompt) {
      assert.equal(tok.decode(r.tokenIds.slice(-2)), "<|start|>assistant");
      assert.deepEqual(r.messageIndices.slice(-2), [-1, -1]);
    }
    // User bodies are content, recoverable from the content tokens of their message.
    c.messages.forEach((m, i) => {
      if (m.role !== "user" || typeof m.content !== "string" || m.content.includes("<|")) return;
      const body = r.tokenIds.filter((_, k) => r.messageIndices[k] === i && r.isContent[k]);
      assert.equal(tok.decode(body), m.content, `${c.id} message ${i}`);
    });
  }
});

test("a gpt-oss checkpoint folder gets the gpt-oss renderer; its template variables are checked by name", () => {
  const folder = gptOssCheckpoint();
  const r = createRenderer(folder, {
    templateVars: { reasoning_effort: "high", current_date: goldens.date },
  });
  assert.ok(r instanceof GptOssRenderer);
  assert.equal(r.name, "gpt-oss");
  assert.deepEqual(r.stopTokenIds, [200002, 200012]);
  const text = r.decode(r.render([{ role: "user", content: "hi" }], { addGenerationPrompt: true }).tokenIds);
  assert.match(text, /Current date: 2026-01-15\n\nReasoning: high\n\n/);
  assert.ok(createRenderer("gpt-oss", { tokenizerPath: folder }) instanceof GptOssRenderer);
  assert.throws(
    () => createRenderer(folder, { templateVars: { builtin_tools: ["python"] } }),
    /unknown template variable "builtin_tools"/,
  );
  assert.throws(() => createRenderer(folder, { preserveAllThinking: true }), /cannot preserve/);
  assert.throws(
    () => createRenderer(folder, { templateVars: { current_date: "Jan 1" } }),
    /currentDate must be YYYY-MM-DD/,
  );
});

test("gpt-oss: a tool without a description is refused naming the tool (the template raises)", () => {
  const r = rendererFor();
  const tools = [
    { type: "function", function: { name: "f", parameters: { type: "object", properties: {} } } },
  ];
  assert.throws(
    () => r.render([{ role: "user", content: "x" }], { tools }),
    /tools\[0\] \(f\)\.description must be a string/,
  );
});

test("a gpt-oss folder whose template is not the release's still gets the gpt-oss renderer, with a warning", () => {
  const warnings: string[] = [];
  createRenderer(gptOssCheckpoint(), { onWarning: (w) => warnings.push(w) });
  assert.equal(warnings.length, 0, "the release template: no warning");
  const folder = gptOssCheckpoint();
  appendFileSync(join(folder, "chat_template.jinja"), "{# a fine-tune's edit #}");
  const r = createRenderer(folder, { onWarning: (w) => warnings.push(w) });
  assert.ok(r instanceof GptOssRenderer);
  assert.equal(warnings.length, 1);
  assert.match(warnings[0]!, /is not the verified gpt-oss release template; the gpt-oss renderer follows/);
});

test("gpt-oss: a message with several calls renders one commentary message per call; results are authored by call id", () => {
  const r = rendererFor();
  const call = (id: string, name: string) => ({ id, type: "function", function: { name, arguments: "{}" } });
  const text = r.decode(
    r.render(
      [
        { role: "user", content: "q" },
        { role: "assistant", content: "", tool_calls: [call("a", "get_time"), call("b", "get_date")] },
        { role: "tool", tool_call_id: "b", content: "monday" },
        { role: "tool", tool_call_id: "a", content: "noon" },
      ],
      { addGenerationPrompt: true },
    ).tokenIds,
  );
  assert.ok(
    text.endsWith(
      "<|start|>user<|message|>q<|end|>" +
        "<|start|>assistant to=functions.get_time<|channel|>commentary json<|message|>{}<|call|>" +
        "<|start|>assistant to=functions.get_date<|channel|>commentary json<|message|>{}<|call|>" +
        '<|start|>functions.get_date to=assistant<|channel|>commentary<|message|>"monday"<|end|>' +
        '<|start|>functions.get_time to=assistant<|channel|>commentary<|message|>"noon"<|end|>' +
        "<|start|>assistant",
    ),
    text,
  );
});
