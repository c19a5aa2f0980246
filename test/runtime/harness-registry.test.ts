/** The harness registry: built-ins load on first use by id; a wrong id is a config error naming harness.id. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { ConfigError } from "../../packages/core/src/errors.ts";
import { getHarness, harnessIds, registerHarness } from "../../packages/core/src/harnesses/index.ts";

test("every built-in id loads the harness of that id", async () => {
  const ids = harnessIds();
  for (const id of ["null", "default", "tools", "command", "openai-agents"]) assert.ok(ids.includes(id), id);
  for (const id of ids) assert.equal((await getHarness(id)).id, id);
});

test("an unknown id names harness.id, suggests the near one and lists the known ones", async () => {
  await assert.rejects(getHarness("tool"), (e: unknown) => {
    assert.ok(e instanceof ConfigError);
    assert.equal(e.path, "harness.id");
    assert.match(
      e.message,
      /^harness\.id: unknown harness "tool" \(did you mean "tools"\?\) \(known: .*null.*\)/,
    );
    return true;
  });
  // Object.prototype members are not ids.
  for (const id of ["constructor", "toString", "__proto__"])
    await assert.rejects(getHarness(id), new RegExp(`unknown harness "${id}"`));
});

test("a registered harness is found by its id", async () => {
  const mine = { ...(await getHarness("null")), id: "registry-test" };
  registerHarness(mine);
  assert.equal(await getHarness("registry-test"), mine);
  assert.ok(harnessIds().includes("registry-test"));
});
