/**
 * The default runtime (`harness.runtime.type = "auto"`, issue 36) per kind of harness, with the
 * host's sandbox probe replaced by either answer: an agent program gets the sandbox with the
 * network shared (it must reach the interception server) and a wide address space, an in-process
 * shell the sandbox without network; where bubblewrap cannot run, both fall back to subprocess
 * and say loudly, naming the harness and the reason, that the model's tools run unisolated.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  AUTO_PROGRAM_SANDBOX,
  AUTO_SANDBOX,
  resolveAutoRuntime,
} from "../../packages/core/src/runtimes/auto.ts";
import { SandboxSpecSchema } from "../../packages/core/src/runtimes/sandbox/spec.ts";

const can = async () => ({ ok: true as const });
const cannot = async () => ({ ok: false as const, reason: "bubblewrap (bwrap) is not installed" });

test("an agent program gets the sandbox with the network; a shell gets it without", async () => {
  const program = await resolveAutoRuntime("command", "program", { ro_bind: ["/opt/agent"] }, can);
  assert.equal(program.unisolated, null);
  assert.deepEqual(program.spec, { ...AUTO_PROGRAM_SANDBOX, ro_bind: ["/opt/agent"] });
  const spec = SandboxSpecSchema.parse(program.spec);
  assert.equal(spec.network, true);
  assert.ok(spec.memory_mb >= 16384, "Node's fetch needs more than 8 GiB of address space");
  // The program is the episode: only the rollout's own timeout bounds it (the sandbox's 10 s default must not).
  assert.ok(spec.timeout_s >= 24 * 3600 && spec.cpu_s >= 3600, JSON.stringify(spec));
  assert.equal(spec.kill_on_output_limit, false, "a verbose agent is not killed for its log");
  const shell = await resolveAutoRuntime("default", "sandbox", {}, can);
  assert.deepEqual(shell.spec, AUTO_SANDBOX);
  assert.equal(SandboxSpecSchema.parse(shell.spec).network, false);
});

test("without bubblewrap both run on the host and the run says so, naming the harness and why", async () => {
  const program = await resolveAutoRuntime("command", "program", {}, cannot);
  assert.deepEqual(program.spec, { type: "subprocess" });
  assert.match(
    program.unisolated!,
    /^harness "command" runs an agent program, and the sandbox cannot run here \(bubblewrap \(bwrap\) is not installed\): the model's tools run UNISOLATED/,
  );
  assert.match(program.unisolated!, /servers' credential in \/proc/);
  const shell = await resolveAutoRuntime("default", "sandbox", {}, cannot);
  assert.match(shell.unisolated!, /^harness "default" gives the model a shell, .* UNISOLATED/);
});

test("harnesses without tools stay on the quiet subprocess runtime", async () => {
  assert.deepEqual(await resolveAutoRuntime("null", "none", {}, cannot), {
    spec: { type: "subprocess" },
    unisolated: null,
  });
});
