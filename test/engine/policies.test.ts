/**
 * Policies: reference (reverse-text solver with seeded noise), replay files, function hooks, echo.
 */
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { loadTokenizer } from "../../packages/core/src/tokenizer/index.ts";
import { type ChatMessage, type PolicyContext, startEngine } from "../../packages/engine/src/index.ts";
import { referenceEngine } from "./reference-engine.ts";

const tok = loadTokenizer();
const SYSTEM = "Reverse the text character-by-character. Put your answer in <reversed_text> tags.";
const reversePrompt = (text: string) =>
  `<|im_start|>system\n${SYSTEM}<|im_end|>\n<|im_start|>user\n${text}<|im_end|>\n<|im_start|>assistant\n`;

async function replies(
  url: string,
  prompt: string,
  n: number,
  extra: Record<string, unknown> = {},
): Promise<string[]> {
  const body = {
    input_ids: Array(n).fill(tok.encode(prompt)),
    sampling_params: { skip_special_tokens: false, no_stop_trim: true },
    ...extra,
  };
  const res = await fetch(`${url}/generate`, { method: "POST", body: JSON.stringify(body) });
  assert.equal(res.status, 200);
  return ((await res.json()) as { text: string }[]).map((r) => r.text);
}

test("reference solves reverse-text by code point, with seeded noise on about 30% of replies", async () => {
  const engine = await referenceEngine({ seed: 11 });
  try {
    const text = "Jumps café über 🙂 fox, naïve résumé!";
    const want = `<reversed_text>\n${[...text].reverse().join("")}\n</reversed_text><|im_end|>`;
    const out = await replies(engine.url, reversePrompt(text), 200);
    const exact = out.filter((r) => r === want).length;
    assert.ok(exact > 110 && exact < 170, `exact ${exact}/200`);
    for (const r of out) assert.match(r, /^<reversed_text>\n[\s\S]+\n<\/reversed_text><\|im_end\|>$/);
    // Same rids → same replies: noise is seeded, not random.
    const again = await replies(engine.url, reversePrompt(text), 3, { rid: ["a", "b", "c"] });
    assert.deepEqual(await replies(engine.url, reversePrompt(text), 3, { rid: ["a", "b", "c"] }), again);
  } finally {
    await engine.close();
  }
});

test("reference plays its source's turns (tool results read back as tool messages); no answer → echo", async () => {
  const seen: ChatMessage[][] = [];
  const engine = await startEngine({
    policy: "reference",
    reference: (messages) => {
      seen.push([...messages]);
      if (messages.at(-1)?.role === "tool")
        return { content: `got ${messages.at(-1)!.content}`, tool_calls: [] };
      if (messages[0]?.content === "plan")
        return { content: "", tool_calls: [{ name: "f", arguments: { x: 1 } }] };
      return null;
    },
  });
  try {
    const ask = async (prompt: string) => (await replies(engine.url, prompt, 1))[0];
    assert.equal(
      await ask("<|im_start|>user\nplan<|im_end|>\n<|im_start|>assistant\n"),
      '<tool_call>\n{"name":"f","arguments":{"x":1}}\n</tool_call><|im_end|>',
    );
    const afterTool =
      "<|im_start|>user\nplan<|im_end|>\n<|im_start|>assistant\n<tool_call>\n{}\n</tool_call><|im_end|>\n" +
      "<|im_start|>user\n<tool_response>\n42\n</tool_response><|im_end|>\n<|im_start|>assistant\n";
    assert.equal(await ask(afterTool), "got 42<|im_end|>");
    assert.deepEqual(
      seen[1]!.map((m) => m.role),
      ["user", "assistant", "tool"],
      "the open generation prompt is not a message",
    );
    assert.equal(
      await ask("<|im_start|>user\nplain question<|im_end|>\n<|im_start|>assistant\n"),
      "plain question<|im_end|>",
    );
  } finally {
    await engine.close();
  }
  const bare = await startEngine({ policy: "reference" });
  try {
    const [r] = await replies(bare.url, reversePrompt("abc"), 1);
    assert.ok(r!.startsWith("abc"), "without a source every prompt is echoed");
  } finally {
    await bare.close();
  }
});

test("replay: matched rows first, then unmatched rows in order; output_ids rows are verbatim", async () => {
  const dir = mkdtempSync(join(tmpdir(), "envroll-replay-"));
  const file = join(dir, "r.jsonl");
  writeFileSync(
    file,
    [
      JSON.stringify({ match: "capital", reply: "Paris" }),
      JSON.stringify({ reply: "first" }),
      JSON.stringify({ output_ids: [9707, 151643] }),
      "",
    ].join("\n"),
  );
  const engine = await startEngine({ policy: `replay:${file}` });
  try {
    const ask = async (q: string) =>
      (await replies(engine.url, `<|im_start|>user\n${q}<|im_end|>\n<|im_start|>assistant\n`, 1))[0];
    assert.equal(await ask("the capital of France?"), "Paris<|im_end|>");
    assert.equal(await ask("anything"), "first<|im_end|>");
    assert.equal(await ask("anything"), "Hello<|endoftext|>");
    assert.equal(await ask("anything"), "first<|im_end|>");
  } finally {
    await engine.close();
  }
});

test("a function policy sees prompt text, ids, sampling and rid; {ids} replies are exact", async () => {
  const seen: PolicyContext[] = [];
  const engine = await startEngine({
    policy: (ctx) => {
      seen.push(ctx);
      return ctx.rid === "ids" ? { ids: [40, 41, 151645] } : { text: `len=${ctx.promptIds.length}` };
    },
  });
  try {
    const prompt = "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n";
    const a = await (
      await fetch(`${engine.url}/generate`, {
        method: "POST",
        body: JSON.stringify({ text: prompt, rid: "t", sampling_params: { temperature: 0.5 } }),
      })
    ).json();
    assert.equal((a as { text: string }).text, `len=${tok.encode(prompt).length}`);
    assert.equal(seen[0]!.promptText, prompt);
    assert.equal(seen[0]!.rid, "t");
    assert.equal(seen[0]!.sampling.temperature, 0.5);
    assert.deepEqual(seen[0]!.lastMessage, { role: "user", content: "hi" });
    const b = (await (
      await fetch(`${engine.url}/generate`, {
        method: "POST",
        body: JSON.stringify({ text: prompt, rid: "ids" }),
      })
    ).json()) as { output_ids: number[] };
    assert.deepEqual(b.output_ids, [40, 41, 151645]);
  } finally {
    await engine.close();
  }
});

test("echo decodes only the prompt tail but answers the last message", async () => {
  const engine = await startEngine();
  try {
    const history =
      "<|im_start|>system\nsys<|im_end|>\n<|im_start|>user\nfirst<|im_end|>\n<|im_start|>assistant\nreply<|im_end|>\n";
    const [r] = await replies(
      engine.url,
      `${history}<|im_start|>user\nsecond turn<|im_end|>\n<|im_start|>assistant\n`,
      1,
    );
    assert.equal(r, "second turn<|im_end|>");
  } finally {
    await engine.close();
  }
});
