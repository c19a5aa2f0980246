/**
 * `envroll engine` as a separate process, answering hand-written HTTP requests. The command is
 * driven through its own registration function so this suite does not depend on how main.ts
 * wires commands.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { request } from "node:http";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { startEngine } from "../../packages/engine/src/index.ts";
import { TS_LOADER } from "../ts-loader.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const MAIN = `
import { Command } from "commander";
import { registerEngineCommand } from "./packages/cli/src/engine.ts";
const program = new Command().exitOverride();
registerEngineCommand(program);
await program.parseAsync(process.argv.slice(1), { from: "user" });
`;

let child: ChildProcess;
let url = "";

function startCli(args: string[]): Promise<{ child: ChildProcess; url: string }> {
  const proc = spawn(
    process.execPath,
    ["--import", TS_LOADER, "--input-type=module", "-e", MAIN, "engine", ...args],
    {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    proc.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
      const m = out.match(/listening on (http:\/\/\S+)/);
      if (m) resolve({ child: proc, url: m[1]! });
    });
    proc.stderr?.on("data", (d: Buffer) => {
      err += d.toString();
    });
    proc.on("exit", (code) => reject(new Error(`engine exited ${code}: ${err}`)));
  });
}

/** Plain node:http, no client library: what a hand-written request looks like. */
function call(method: string, path: string, body?: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>(
    (resolve, reject) => {
      const req = request(
        `${url}${path}`,
        { method, headers: { "content-type": "application/json", ...headers } },
        (res) => {
          let data = "";
          res.setEncoding("utf8");
          res.on("data", (c) => {
            data += c;
          });
          res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: data }));
        },
      );
      req.on("error", reject);
      req.end(body);
    },
  );
}

before(async () => {
  ({ child, url } = await startCli(["--port", "0", "--policy", "reference", "--token", "s3cret"]));
});
after(() => {
  child.kill("SIGTERM");
});

const AUTH = { authorization: "Bearer s3cret" };

test("binds 127.0.0.1 by default and requires the bearer token", async () => {
  assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
  const none = await call("GET", "/health");
  assert.equal(none.status, 401);
  assert.equal(JSON.parse(none.body).error.message, "Unauthorized");
  assert.equal((await call("GET", "/health", undefined, { authorization: "Bearer wrong" })).status, 401);
  assert.equal((await call("GET", "/health", undefined, AUTH)).status, 200);
});

test("a hand-written /generate request gets the documented shape", async () => {
  const res = await call(
    "POST",
    "/generate",
    '{"text": "<|im_start|>user\\nhello<|im_end|>\\n<|im_start|>assistant\\n", "sampling_params": {"max_new_tokens": 16, "temperature": 0}, "return_logprob": true, "rid": "hand-1"}',
    AUTH,
  );
  assert.equal(res.status, 200);
  assert.match(String(res.headers["content-type"]), /application\/json/);
  const json = JSON.parse(res.body);
  assert.equal(json.text, "hello");
  assert.deepEqual(json.output_ids.slice(-1), [151645]);
  assert.equal(json.meta_info.id, "hand-1");
  assert.deepEqual(json.meta_info.finish_reason, { type: "stop", matched: 151645 });
  assert.equal(json.meta_info.output_token_logprobs.length, json.meta_info.completion_tokens);
  const bad = await call("POST", "/generate", '{"input_ids": []}', AUTH);
  assert.equal(bad.status, 400);
  assert.deepEqual(JSON.parse(bad.body), { error: { message: "input_ids cannot be empty." } });
});

test("model info names the engine", async () => {
  const info = JSON.parse((await call("GET", "/get_model_info", undefined, AUTH)).body);
  assert.equal(info.model_path, "envroll-engine/reference");
  assert.equal(info.weight_version, "default");
});

test("binding a non-loopback host without a token is refused before listening", async () => {
  await assert.rejects(startEngine({ host: "0.0.0.0", port: 0 }), /pass a token/);
});
