/**
 * One rollout of the built-in coding agent (`default` harness on its default runtime, the
 * sandbox) whose scripted model runs `commands` as bash calls, one a turn, then says it is done.
 * The adversarial tests drive the grader's guards with it; the environment is closed after.
 */
import assert from "node:assert/strict";
import type { Environment } from "../../../packages/core/src/environment.ts";
import type { TraceRecord } from "../../../packages/core/src/trace/record.ts";
import { callTool, ScriptedClient, say } from "./scripted-client.ts";

export async function bashEpisode(env: Environment, commands: readonly string[]): Promise<TraceRecord> {
  let turn = 0;
  const client = new ScriptedClient(() =>
    turn < commands.length ? callTool("bash", { command: commands[turn] }, `c${turn++}`) : say("done"),
  );
  try {
    assert.equal(env.config.harness.runtime.type, "sandbox");
    const [r] = await env.runGroup(0, 1, { client });
    assert.deepEqual(r!.errors, []);
    return r!;
  } finally {
    await env.close();
  }
}
