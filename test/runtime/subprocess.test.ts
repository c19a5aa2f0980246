import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { test } from "node:test";
import { createRuntime, registerRuntime, runtimeTypes } from "../../packages/core/src/runtimes/index.ts";
import { SubprocessRuntime } from "../../packages/core/src/runtimes/subprocess.ts";

test("subprocess runtime: workdir files, exit codes, env allowlist, cleanup", async () => {
  process.env["ENVROLL_SECRET_TEST"] = "leak";
  process.env["ENVROLL_FORWARDED"] = "yes";
  const rt = new SubprocessRuntime({ forwardEnv: ["ENVROLL_FORWARDED"] });
  await rt.start();
  const dir = rt.workdir;
  await rt.writeFile(
    "sub/a.py",
    "import os,sys\nprint(os.environ.get('ENVROLL_SECRET_TEST'), os.environ.get('ENVROLL_FORWARDED'), os.environ.get('EXTRA'))\nsys.exit(4)\n",
  );
  const r = await rt.run(["python3", "sub/a.py"], { env: { EXTRA: "e" } });
  assert.equal(r.exitCode, 4);
  assert.equal(r.stdout.trim(), "None yes e");
  assert.equal(r.timedOut, false);
  assert.deepEqual(new TextDecoder().decode(await rt.readFile("sub/a.py")).slice(0, 9), "import os");
  await assert.rejects(rt.writeFile("../escape.txt", "x"), { name: "SandboxError" });
  const missing = await rt.run(["definitely-not-a-binary-xyz"]);
  assert.notEqual(missing.exitCode, 0);
  await rt.stop();
  assert.equal(existsSync(dir), false);
});

test("subprocess runtime: a timeout kills the whole process group; output is capped", async () => {
  const rt = new SubprocessRuntime({ outputLimitBytes: 1000 });
  await rt.start();
  // The shell starts a grandchild that would outlive a plain kill of the direct child.
  const started = Date.now();
  const r = await rt.run(["sh", "-c", "sleep 30 & echo $! > child.pid; wait"], { timeoutMs: 300 });
  assert.equal(r.timedOut, true);
  assert.ok(Date.now() - started < 5000);
  const pid = Number(new TextDecoder().decode(await rt.readFile("child.pid")));
  await new Promise((res) => setTimeout(res, 100));
  // Gone, or a zombie waiting for a reaper that this container may not have.
  const stat = existsSync(`/proc/${pid}/stat`) ? readFileSync(`/proc/${pid}/stat`, "utf8") : "";
  assert.ok(stat === "" || / Z /.test(stat), `the grandchild is gone too (${stat})`);
  const big = await rt.run(["python3", "-c", "print('y' * 100000)"]);
  assert.equal(big.outputTruncated, true);
  assert.equal(big.stdout.length, 1000);
  await rt.stop();
});

test("subprocess runtime: the run ends when the program exits, even if a background child holds its stdout", async () => {
  // The background `sleep` inherits the pipes: waiting for them to close (instead of killing the
  // group when the leader exits) hung the rollout until the sleep ended, forever without a timeout.
  const rt = new SubprocessRuntime();
  await rt.start();
  const t0 = performance.now();
  const r = await rt.run(["sh", "-c", "sleep 30 & echo leader-done"]);
  const ms = performance.now() - t0;
  assert.equal(r.exitCode, 0);
  assert.equal(r.stdout.trim(), "leader-done");
  assert.ok(ms < 10_000, `run took ${Math.round(ms)} ms`);
  await rt.stop();
});

test("runtime registry: built-ins, registration; an unknown type is not found (the validator names the key)", async () => {
  assert.ok(runtimeTypes().includes("subprocess"));
  const rt = await createRuntime({ type: "subprocess" });
  assert.equal(rt.kind, "subprocess");
  registerRuntime("fake", () => ({ ...rt, kind: "fake" }) as never);
  assert.equal((await createRuntime({ type: "fake" })).kind, "fake");
  // Not a ConfigError: a config naming "warp" is refused when it is validated (test/runtime/config.test.ts).
  await assert.rejects(createRuntime({ type: "warp" }), (e: Error) => {
    assert.equal(e.name, "Error");
    assert.match(e.message, /^unknown runtime "warp" \(known: .*subprocess/);
    return true;
  });
});
