/** The README test's reading of Markdown and shell: markers, fences, set-up commands, words. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { blocks } from "./markdown.ts";
import { checkedCommands, isEnvrollCommand, words } from "./shell.ts";

test("a marker comment above a fence decides the block; blank lines between are allowed", () => {
  const md = [
    "# T",
    "<!-- readme-test: save agent.py -->",
    "```python",
    "print(1)",
    "```",
    "<!-- readme-test: run needs-python=openai,httpx -->",
    "",
    "```sh",
    "npx envroll eval x",
    "```",
    "```toml",
    "a = 1",
    "```",
  ].join("\n");
  const [save, run, plain] = blocks("R.md", md);
  assert.deepEqual(save!.mark, { kind: "save", file: "agent.py" });
  assert.equal(save!.line, 3);
  assert.equal(save!.body, "print(1)\n");
  assert.deepEqual(run!.mark, { kind: "run", needsPython: ["openai", "httpx"] });
  assert.equal(plain!.mark, null);
  assert.equal(plain!.lang, "toml");
});

test("a wrong marker or an open fence is an error naming the line", () => {
  assert.throws(
    () => blocks("R.md", "<!-- readme-test: runn -->\n```sh\nx\n```\n"),
    /R\.md:1: unknown readme-test marker "runn"/,
  );
  assert.throws(
    () => blocks("R.md", "<!-- readme-test: skip -->\n```sh\nx\n```\n"),
    /R\.md:1: readme-test skip needs a reason/,
  );
  assert.throws(() => blocks("R.md", "text\n```sh\nnpx envroll eval\n"), /R\.md:2: code fence never closed/);
});

test("set-up and suite commands are dropped, comments included, and envroll commands recognised", () => {
  const body = [
    "npm ci && npx envroll eval reverse-text -n 8   # set-up && the main job",
    "npm test",
    "npm run fixtures   # = node scripts/py-env.mjs && .venv/bin/python gen.py",
    "MILES_SRC=/m python -m pytest python/x -q",
    'echo \'{"a": "b && c"}\' \\',
    "  | npx envroll tokens render -m Qwen/Qwen3-8B",
  ].join("\n");
  const commands = checkedCommands(body);
  assert.deepEqual(commands, [
    "npx envroll eval reverse-text -n 8",
    `echo '{"a": "b && c"}'    | npx envroll tokens render -m Qwen/Qwen3-8B`,
  ]);
  assert.ok(commands.every(isEnvrollCommand));
  assert.equal(isEnvrollCommand("python3 agent.py | npx envroll score x"), false);
  assert.deepEqual(words(`npx envroll eval t --harness.command '["python3", "agent.py"]' # note`), [
    "npx",
    "envroll",
    "eval",
    "t",
    "--harness.command",
    '["python3", "agent.py"]',
  ]);
});
