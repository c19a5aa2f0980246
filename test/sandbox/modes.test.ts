/** Sandbox modes, the refusal without bubblewrap, the explicit unsandboxed opt-in, and the registry. */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { existsSync, rmSync } from "node:fs";
import { test } from "node:test";
import { SandboxError } from "../../packages/core/src/errors.ts";
import { createRuntime } from "../../packages/core/src/runtimes/index.ts";
import {
  ALL_FEATURES,
  bwrapCommand,
  bwrapFeatures,
} from "../../packages/core/src/runtimes/sandbox/command.ts";
import { probeSandbox } from "../../packages/core/src/runtimes/sandbox/probe.ts";
import { SandboxRuntime, SandboxSpecSchema } from "../../packages/core/src/runtimes/sandbox.ts";
import { leftovers, runPython } from "./helpers.ts";

const isRoot = process.getuid?.() === 0;
const available = await probeSandbox({ bwrap: null, mode: "auto" });
const skip = available.ok ? false : `bubblewrap cannot sandbox here: ${available.reason}`;

test("without bubblewrap the sandbox refuses to start, naming the fix", async () => {
  const rt = new SandboxRuntime({ type: "sandbox", bwrap: "/nonexistent/bwrap" });
  await assert.rejects(
    () => rt.start(),
    (e: unknown) =>
      e instanceof SandboxError && /bubblewrap not found.*allow_unsandboxed = true/s.test(e.message),
  );
});

test("allow_unsandboxed falls back to a plain subprocess with rlimits, and warns", async () => {
  const warnings: string[] = [];
  const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
  process.on("warning", onWarning);
  try {
    const tag = randomBytes(4).toString("hex");
    const r = await runPython(
      `import os, resource\nprint(os.getuid(), resource.getrlimit(resource.RLIMIT_NPROC)[0])\nopen('/tmp/unsandboxed-${tag}', 'w').write('x')`,
      { bwrap: "/nonexistent/bwrap", allow_unsandboxed: true, processes: 50 },
    );
    assert.equal(r.exitCode, 0, r.stderr);
    assert.equal(r.stdout.trim(), `${isRoot ? 65534 : process.getuid?.()} 50`);
    // No filesystem isolation here: the write lands on the host. That is what the opt-in means.
    assert.equal(existsSync(`/tmp/unsandboxed-${tag}`), true);
    rmSync(`/tmp/unsandboxed-${tag}`, { force: true });
    await new Promise((res) => setImmediate(res));
    assert.ok(
      warnings.some((w) => /SandboxWarning: .*UNSANDBOXED/.test(w)),
      warnings.join("\n"),
    );
  } finally {
    process.off("warning", onWarning);
  }
});

test("unsandboxed fallback still kills an orphan left in its process group", async () => {
  const marker = `32.${randomBytes(3).readUIntBE(0, 3)}`;
  const r = await runPython(
    `import subprocess\nsubprocess.Popen(['sleep', '${marker}'])\nprint('parent done')`,
    { bwrap: "/nonexistent/bwrap", allow_unsandboxed: true },
  );
  assert.equal(r.stdout.trim(), "parent done");
  assert.deepEqual(await leftovers(`sleep ${marker}`), []);
});

test("invalid spec keys are refused with the key named", () => {
  assert.throws(() => new SandboxRuntime({ type: "sandbox", memory_mb: -1 }), /memory_mb/);
  assert.throws(
    () => new SandboxRuntime({ type: "sandbox", memroy_mb: 5 } as never),
    /memroy_mb|Unrecognized/,
  );
});

test("the runtime registry builds a sandbox from { type: 'sandbox' }", { skip }, async () => {
  const rt = await createRuntime({ type: "sandbox", timeout_s: 3 });
  assert.equal(rt.kind, "sandbox");
  await rt.start();
  try {
    const r = await rt.run(["python3", "-c", "print(6*7)"]);
    assert.equal(r.stdout, "42\n");
  } finally {
    await rt.stop();
  }
});

test(
  "rootns mode (no user namespace; setpriv inside) contains the same attacks",
  { skip: !isRoot },
  async (t) => {
    const probe = await probeSandbox({ bwrap: null, mode: "rootns" });
    if (!probe.ok) {
      t.skip(`rootns unavailable here: ${probe.reason}`);
      return;
    }
    const spec = { mode: "rootns" as const, processes: 32 };
    const base = await runPython(
      "import os, socket\nprint(os.getuid())\ntry:\n  socket.create_connection(('1.1.1.1', 80), timeout=1); print('NET')\nexcept OSError: print('nonet')",
      spec,
    );
    assert.equal(base.stdout, "65534\nnonet\n", base.stderr);
    const secret = await runPython(
      "try: print(open('/root/.bashrc').read())\nexcept OSError: print('denied')",
      spec,
    );
    assert.equal(secret.stdout, "denied\n");
    const bomb = await runPython(
      "import os, time\nwhile True:\n  try: os.fork()\n  except OSError: time.sleep(0.01)",
      spec,
      1500,
    );
    assert.equal(bomb.timedOut, true);
    assert.deepEqual(await leftovers(bomb.marker), []);
  },
);

test("flags newer than the installed bubblewrap are left out (0.6 has no --disable-userns, --size)", async () => {
  const old = bwrapFeatures("usage: bwrap [OPTIONS...]\n    --unshare-all\n    --perms OCTAL\n");
  assert.deepEqual(old, { disableUserns: false, tmpfsSize: false, tmpfsPerms: true });
  const base = {
    mode: "userns" as const,
    tools: { bwrap: "/usr/bin/bwrap", prlimit: "/usr/bin/prlimit", setpriv: "/usr/bin/setpriv" },
    spec: SandboxSpecSchema.parse({}),
    workdir: "/tmp/w",
    cwd: "/tmp/w",
    argv: ["python3", "x.py"],
  };
  const modern = bwrapCommand({ ...base, features: ALL_FEATURES });
  const legacy = bwrapCommand({ ...base, features: old });
  for (const flag of ["--disable-userns", "--size"]) {
    assert.ok(modern.includes(flag));
    assert.ok(!legacy.includes(flag));
  }
  // The program always comes last, behind the rlimits.
  assert.deepEqual(legacy.slice(-3), ["--", "python3", "x.py"]);
  assert.ok(legacy.includes("--unshare-all") && legacy.includes("--die-with-parent"));
  if (available.ok) assert.equal(typeof available.features.disableUserns, "boolean");
});
