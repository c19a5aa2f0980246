import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";

import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { BIN } from "../cli/cli-helpers.ts";
import { casesOf } from "./fixture-cases.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

function cliOp(
  op: string,
  args: string[],
  input: string,
): { stdout: string; stderr: string; status: number | null } {
  // The real CLI, as users run it (its built bundle; the sources under tsx when dist/ is stale).
  const r = spawnSync(process.execPath, [BIN, "tokens", op, ...args], {
    cwd: root,
    input,
    encoding: "utf8",
    timeout: 60_000,
  });
  return { stdout: r.stdout, stderr: r.stderr, status: r.status };
}

/** `envroll tokens <op> … --jsonl` over `input`: it must exit 0; one parsed result per output line. */
function cliJsonl(op: string, args: string[], input: string): any[] {
  const r = cliOp(op, [...args, "--jsonl"], input);
  assert.equal(r.status, 0, r.stderr);
  return r.stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
}

const visible = casesOf("qwen3_visible.json");

test("tokens render --jsonl: one result per line, bad lines answered with an error and skipped", () => {
  const renders = visible.filter(
    (c) => c.kind === "render" && c.hf.error === null && !c.renderer_config.preserve_all_thinking,
  );
  assert.ok(renders.length > 5);
  const lines = renders.map((c) =>
    JSON.stringify({
      messages: c.messages,
      tools: c.tools,
      add_generation_prompt: c.add_generation_prompt,
      ...(c.enable_thinking === null ? {} : { enable_thinking: c.enable_thinking }),
    }),
  );
  lines.splice(2, 0, "{not json", JSON.stringify({ messages: "nope" }));
  const out = cliJsonl("render", ["--model", "qwen3"], `${lines.join("\n")}\n`);
  assert.equal(out.length, lines.length);
  assert.match(out[2].error, /line 3: /);
  assert.match(out[3].error, /line 4: .*messages/);
  const results = out.filter((o) => !("error" in o));
  renders.forEach((c, i) => {
    assert.deepEqual(results[i].ids, c.hf.token_ids, c.id);
    assert.deepEqual(results[i].message_indices, c.renderer.message_indices, c.id);
    assert.deepEqual(results[i].sampled_mask, c.renderer.sampled_mask, c.id);
    assert.deepEqual(results[i].is_content, c.renderer.is_content, c.id);
  });
});

test("tokens parse --jsonl: snake_case tool calls with token_span and status", () => {
  const parses = visible.filter((c) => c.kind === "parse");
  const input = parses
    .map((c) => JSON.stringify({ completion_ids: c.completion_ids, tools: c.tools }))
    .join("\n");
  const out = cliJsonl("parse", [], input);
  parses.forEach((c, i) => {
    assert.equal(out[i].content, c.parsed.content, c.id);
    assert.equal(out[i].reasoning, c.parsed.reasoning_content, c.id);
    assert.deepEqual(
      out[i].tool_calls.map((t: any) => [t.status, t.name, t.token_span]),
      c.parsed.tool_calls.map((t: any) => [t.status, t.name, t.token_span]),
      c.id,
    );
  });
});

test("tokens bridge --jsonl: ids or null", () => {
  const bridges = visible.filter((c) => c.kind === "bridge" && c.renderer_config.enable_thinking);
  const input = bridges
    .map((c) =>
      JSON.stringify({
        prev_prompt_ids: c.prev_prompt_ids,
        prev_completion_ids: c.prev_completion_ids,
        new_messages: c.new_messages,
        tools: c.tools,
      }),
    )
    .join("\n");
  const out = cliJsonl("bridge", [], input);
  assert.ok(bridges.some((c) => c.result === null) && bridges.some((c) => c.result !== null));
  bridges.forEach((c, i) => {
    assert.deepEqual(out[i].ids, c.result === null ? null : c.result.token_ids, c.id);
    if (c.result) assert.deepEqual(out[i].message_indices, c.result.message_indices, c.id);
  });
});

test("tokens render without --jsonl prints a token table", () => {
  const r = cliOp(
    "render",
    ["--model", "Qwen/Qwen3-8B"],
    JSON.stringify({ messages: [{ role: "user", content: "hi" }], add_generation_prompt: true }),
  );
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /151644 +"<\|im_start\|>" +0:user/);
  assert.match(r.stdout, /6023 +"hi" +0:user +\. +C/);
  assert.match(r.stdout, /77091 +"assistant" +\(scaffold\)/);
  assert.match(r.stdout, /9 token\(s\), 0 sampled/);
});

test("tokens with an unknown model fails with the known names", () => {
  const r = cliOp("render", ["--model", "llama-9", "--jsonl"], JSON.stringify({ messages: [] }));
  const out = JSON.parse(r.stdout.trim());
  assert.match(out.error, /no renderer for model "llama-9".*qwen3/);
});
