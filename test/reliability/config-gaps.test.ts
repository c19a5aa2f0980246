/**
 * Config gaps found by probing malformed configs beyond the config suite's cases: each must fail
 * at load with a ConfigError that names the key (not later, at run time, as a bare TypeError).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { loadConfig } from "../../packages/core/src/loaders/config.ts";

const BASE = '[taskset]\nid = "reverse-text"\n';

test("client.base_url must be an http(s) URL, and the error names the key", async () => {
  for (const type of ["train", "eval"]) {
    for (const url of ["not a url", "localhost:30000", "ftp://host/x", "file:///etc/passwd"]) {
      await assert.rejects(
        loadConfig(`${BASE}[client]\ntype = "${type}"\nbase_url = "${url}"\n`),
        (e: any) => {
          assert.equal(e.name, "ConfigError");
          assert.equal(e.path, "client.base_url");
          assert.match(e.message, /^client\.base_url: /);
          return true;
        },
      );
    }
    const ok = await loadConfig(
      `${BASE}[client]\ntype = "${type}"\nbase_url = "http://127.0.0.1:30000/v1"\n`,
    );
    assert.equal(ok.client.base_url, "http://127.0.0.1:30000/v1");
  }
});
