/**
 * The harness registry: built-ins load on first use by id. A wrong id is the config validator's
 * to report (a ConfigError naming harness.id, with did-you-mean); the registry only finds.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { ConfigError } from "../../packages/core/src/errors.ts";
import {
  findHarness,
  getHarness,
  harnessIds,
  registerHarness,
} from "../../packages/core/src/harnesses/index.ts";
import { loadConfig } from "../../packages/core/src/loaders/config.ts";

test("every built-in id loads the harness of that id", async () => {
  const ids = harnessIds();
  for (const id of ["null", "default", "tools", "command", "openai-agents"]) assert.ok(ids.includes(id), id);
  for (const id of ids) assert.equal((await getHarness(id)).id, id);
});

test("an unknown id names harness.id, suggests the near one and lists the known ones", async () => {
  await assert.rejects(loadConfig('taskset.id = "reverse-text"\nharness.id = "tool"'), (e: unknown) => {
    assert.ok(e instanceof ConfigError);
    assert.equal(e.path, "harness.id");
    assert.match(
      e.message,
      /^harness\.id: unknown harness "tool" \(did you mean "tools"\?\) \(known: .*null.*\)/,
    );
    return true;
  });
  // Object.prototype members are not ids.
  for (const id of ["constructor", "toString", "__proto__"]) {
    assert.equal(await findHarness(id), null, id);
    await assert.rejects(
      getHarness(id),
      (e: Error) => !(e instanceof ConfigError) && /unknown harness/.test(e.message),
    );
    if (id !== "__proto__")
      await assert.rejects(
        loadConfig(`taskset.id = "reverse-text"\nharness.id = "${id}"`),
        new RegExp(`harness\\.id: unknown harness "${id}"`),
      );
  }
});

test("a registered harness is found by its id", async () => {
  const mine = { ...(await getHarness("null")), id: "registry-test" };
  registerHarness(mine);
  assert.equal(await getHarness("registry-test"), mine);
  assert.ok(harnessIds().includes("registry-test"));
});
