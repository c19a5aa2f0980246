/**
 * The network boundary of `envroll serve` and `envroll engine`: loopback unless a token is given,
 * 401 for any wrong credential, 413 for oversize bodies (answered, not a reset connection), 400
 * with a reason for malformed requests, and no stack trace or file path in any error body.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { request } from "node:http";
import { describe, test } from "node:test";
import { InterceptionServer } from "../../packages/core/src/interception/server.ts";
import { startService } from "../../packages/core/src/service/server.ts";
import { startEngine } from "../../packages/engine/src/index.ts";
import { BIN, ROOT, runCli } from "../cli/cli-helpers.ts";
import { FakeClient, FakeEnv } from "../service/fake-env.ts";
import { tempFile } from "../temp-file.ts";

/** A leaked stack frame (`at fn (file:1:2)`) or an absolute path in an error body. */
function assertNoLeak(text: string): void {
  assert.doesNotMatch(text, /\n\s+at |\bat .*:\d+:\d+/, `stack trace in ${text}`);
  assert.doesNotMatch(text, /(\/work\/|\/home\/|\/tmp\/|node_modules|\.ts\b)/, `path in ${text}`);
}

/** POST over a raw node:http request; `chunked` streams the body without a content-length. */
function post(
  url: string,
  body: string,
  opts: { headers?: Record<string, string>; chunked?: boolean } = {},
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { "content-type": "application/json", ...opts.headers };
    if (!opts.chunked) headers["content-length"] = String(Buffer.byteLength(body));
    const req = request(url, { method: "POST", headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d) => {
        text += d;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on("error", reject);
    if (opts.chunked) {
      for (let i = 0; i < body.length; i += 65_536) req.write(body.slice(i, i + 65_536));
      req.end();
    } else req.end(body);
  });
}

const BIG = "x".repeat(3 * 1024 * 1024);

describe("service boundary", () => {
  test("engine (single worker and router): 413 is answered, 400 names the problem, nothing leaks", async () => {
    for (const workers of [0, 2]) {
      const engine = await startEngine({ workers, bodyLimit: 64 * 1024 });
      try {
        for (const chunked of [false, true]) {
          const r = await post(`${engine.url}/generate`, BIG, { chunked });
          assert.equal(r.status, 413, `workers=${workers} chunked=${chunked}: ${r.text}`);
          assertNoLeak(r.text);
        }
        const cases: [string, RegExp][] = [
          ["{not json", /JSON decode error/],
          [JSON.stringify({ input_ids: "abc" }), /input_ids/],
          [JSON.stringify({ input_ids: [1, 2], sampling_params: { temprature: 1 } }), /temprature/],
        ];
        for (const [body, reason] of cases) {
          const r = await post(`${engine.url}/generate`, body);
          assert.equal(r.status, 400, `${body}: ${r.text}`);
          assert.match(r.text, reason);
          assertNoLeak(r.text);
        }
        // Still healthy after all that.
        assert.equal((await fetch(`${engine.url}/health`)).status, 200);
      } finally {
        await engine.close();
      }
    }
  });

  test("rollout service: 413 for declared and chunked oversize bodies, 400 with a reason, no leaks", async () => {
    const svc = await startService({
      env: new FakeEnv(),
      makeClient: () => new FakeClient(),
      bodyLimit: 4096,
    });
    try {
      for (const chunked of [false, true]) {
        const r = await post(`${svc.url}/rollout`, BIG, { chunked });
        assert.equal(r.status, 413, r.text);
        assertNoLeak(r.text);
      }
      const cases: [string, string, RegExp][] = [
        ["/rollout", "[1, 2", /invalid JSON body/],
        [
          "/rollout",
          JSON.stringify({ rollout_id: 0, n: 1, count: 1, engine_url: "file:///etc/passwd" }),
          /engine_url/,
        ],
        [
          "/rollout",
          JSON.stringify({ rollout_id: "0", n: 1, engine_url: "http://127.0.0.1:9" }),
          /rollout_id/,
        ],
        ["/release", JSON.stringify({ request_id: "", consumed: -1 }), /request_id|consumed/],
        ["/abort", JSON.stringify({ rollout_id: 1.5 }), /rollout_id/],
      ];
      for (const [path, body, reason] of cases) {
        const r = await post(`${svc.url}${path}`, body);
        assert.equal(r.status, 400, `${path} ${body}: ${r.text}`);
        assert.match(r.text, reason);
        assertNoLeak(r.text);
      }
      for (const path of ["/nope", "/../../etc/passwd"]) {
        const r = await fetch(`${svc.url}${path}`);
        assert.equal(r.status, 404);
        assertNoLeak(await r.text());
      }
      // Request timeouts are on: a client cannot trickle headers or a body forever.
      assert.ok(svc.server.headersTimeout > 0 && svc.server.requestTimeout > 0);
    } finally {
      await svc.close();
    }
  });

  test("rollout service: an unexpected failure is a 500 without its message (paths stay in the log)", async () => {
    const env = new FakeEnv();
    const logged: string[] = [];
    // /info reads the environment's facts; make that blow up with a path in the message.
    Object.defineProperty(env, "info", {
      get() {
        throw new Error("EACCES: permission denied, open '/srv/envroll/state/cursor-3.json'");
      },
    });
    const svc = await startService({ env, makeClient: () => new FakeClient(), log: (m) => logged.push(m) });
    try {
      const r = await fetch(`${svc.url}/info`);
      assert.equal(r.status, 500);
      const text = await r.text();
      assertNoLeak(text);
      assert.doesNotMatch(text, /srv|EACCES/);
      assert.ok(
        logged.some((l) => l.includes("/srv/envroll/state")),
        "the detail is logged",
      );
    } finally {
      await svc.close();
    }
  });

  test("interception server (what harness programs call): 413 over 64 MiB, 401 without the secret", async () => {
    const server = new InterceptionServer();
    // The body is refused before the session is ever consulted, so a stand-in session will do.
    const reg = await server.register({} as never);
    try {
      const url = `${reg.baseUrl}/chat/completions`;
      const huge = `{"messages": "${"x".repeat(65 * 1024 * 1024)}"}`;
      const r = await post(url, huge, { chunked: true, headers: { authorization: `Bearer ${reg.secret}` } });
      assert.equal(r.status, 413, r.text.slice(0, 200));
      assertNoLeak(r.text);
      const bad = await post(url, "{}", { headers: { authorization: "Bearer not-the-secret" } });
      assert.equal(bad.status, 401);
      assert.match(reg.baseUrl, /^http:\/\/127\.0\.0\.1:/);
    } finally {
      reg.dispose();
      await server.close();
    }
  });

  test("a token is checked on every route; any wrong credential is 401", async () => {
    const engine = await startEngine({ token: "engine-secret" });
    const svc = await startService({
      env: new FakeEnv(),
      makeClient: () => new FakeClient(),
      token: "service-secret",
    });
    try {
      for (const [url, token] of [
        [engine.url, "engine-secret"],
        [svc.url, "service-secret"],
      ] as const) {
        const wrong: Record<string, string>[] = [
          {},
          { authorization: `Bearer ${token}x` },
          { authorization: `Bearer ${token.slice(0, -1)}` },
          { authorization: `bearer ${token}` },
          { authorization: token },
          { authorization: "Bearer " },
        ];
        for (const headers of wrong) {
          const r = await fetch(`${url}/health`, { headers });
          assert.equal(r.status, 401, `${url} ${JSON.stringify(headers)}`);
          assertNoLeak(await r.text());
          const p = await post(`${url}/${url === svc.url ? "abort" : "abort_request"}`, "{}", { headers });
          assert.equal(p.status, 401);
        }
        assert.equal(
          (await fetch(`${url}/health`, { headers: { authorization: `Bearer ${token}` } })).status,
          200,
        );
      }
    } finally {
      await svc.close();
      await engine.close();
    }
  });

  test("the CLIs refuse a non-loopback bind without --token, and bind 127.0.0.1 by default", async () => {
    const config = tempFile(
      "envroll-bind-",
      "env.toml",
      'model = "Qwen/Qwen3-0.6B"\nnum_tasks = 2\n[taskset]\nid = "reverse-text"\n',
    );
    const env = { ...process.env, ENVROLL_TOKEN: "" };
    for (const args of [
      ["serve", config, "--host", "0.0.0.0"],
      ["engine", "--host", "0.0.0.0"],
    ]) {
      const res = await new Promise<{ code: number | null; out: string }>((resolve) => {
        const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env });
        let out = "";
        child.stdout.on("data", (d) => {
          out += d;
        });
        child.stderr.on("data", (d) => {
          out += d;
        });
        child.on("close", (code) => resolve({ code, out }));
      });
      assert.notEqual(res.code, 0, `${args[0]} started: ${res.out}`);
      assert.match(res.out, /--token/);
      assert.doesNotMatch(res.out, /listening on/);
      assertNoLeak(res.out.replace(config, "<config>"));
    }
    // The default bind is loopback (shutdown.test.ts also checks the URL a default serve prints).
    for (const cmd of ["serve", "engine"]) {
      const help = await runCli([cmd, "--help"]);
      assert.match(help.stdout, /--host <host>[\s\S]{0,120}?default:\s+"127\.0\.0\.1"/, help.stdout);
    }
  });
});
