/**
 * The acp harnesses' configuration, without running an agent: the ids are registered, a bad
 * `[harness.acp]` is a config error naming the key, `${NAME}` in harness.env expands to the
 * rollout's variables only, and the install cache's folder names are stable.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { cacheKey } from "../../packages/core/src/harnesses/acp/install.ts";
import { expandEnv, promptText } from "../../packages/core/src/harnesses/acp/run.ts";
import { getHarness } from "../../packages/core/src/harnesses/index.ts";
import { loadConfig } from "../../packages/core/src/loaders/config.ts";

const base = 'taskset = { id = "reverse-text" }\nmodel = "m"\n[harness]\n';

async function configError(toml: string): Promise<string> {
  try {
    await loadConfig(base + toml);
  } catch (e) {
    return (e as Error).message;
  }
  return "no error";
}

test("acp, codex and claude_code are harness ids (V1's names for the presets)", async () => {
  for (const id of ["acp", "codex", "claude_code"]) assert.equal((await getHarness(id)).id, id);
});

test("a bad agent config is a config error naming the key", async () => {
  assert.match(
    await configError('id = "acp"\n'),
    /harness\.acp\.command.*required when harness\.id = "acp"/s,
  );
  assert.match(
    await configError('id = "codex"\n[harness.acp]\npermision = "allow"\n'),
    /harness\.acp.*permision/s,
  );
  assert.match(
    await configError(
      'id = "claude_code"\n[harness.acp]\npackages = ["@agentclientprotocol/claude-agent-acp@latest"]\n',
    ),
    /harness\.acp\.packages\.0.*pinned to an exact version/s,
  );
  assert.match(
    await configError('id = "codex"\n[harness.acp]\npermission = "maybe"\n'),
    /harness\.acp\.permission/,
  );
  assert.match(
    await configError('id = "codex"\n[harness.acp]\nprompt_timeout = -1\n'),
    /harness\.acp\.prompt_timeout/,
  );
  assert.match(
    await configError('id = "codex"\n[harness.acp]\nmcp_ready_timeout = "soon"\n'),
    /harness\.acp\.mcp_ready_timeout/,
  );
  assert.match(await configError('id = "codex"\nhosted_tools = "sometimes"\n'), /harness\.hosted_tools/);
  const ok = await loadConfig(
    `${base}id = "codex"\nhosted_tools = "refuse"\n[harness.acp]\nprompt_timeout = 60\npermission = "deny"\n`,
  );
  assert.deepEqual(ok.harness.acp, { prompt_timeout: 60, permission: "deny" });
});

/** `${NAME}` spelled without a template-looking string literal. */
const ref = (name: string) => "$".concat("{", name, "}");

test("harness.env expands rollout variable references from the rollout's variables only", () => {
  const env = expandEnv(
    { A: `x${ref("OPENAI_BASE_URL")}y`, B: ref("HOME"), C: "plain" },
    { OPENAI_BASE_URL: "http://127.0.0.1:1/v1" },
  );
  assert.deepEqual(env, { A: "xhttp://127.0.0.1:1/v1y", B: ref("HOME"), C: "plain" });
});

test("V1's prompt framing for agents without a system prompt; cache folders by package", () => {
  assert.equal(promptText("sys", "do it"), "(system)\nsys\n\n[user]\ndo it");
  assert.equal(promptText(null, "do it"), "do it");
  assert.equal(cacheKey(["@agentclientprotocol/codex-acp@2.6.0"]), "codex-acp@2.6.0");
  assert.equal(cacheKey(["a@1.0.0", "@s/b@2.0.0"]), "a@1.0.0+b@2.0.0");
});
