/**
 * The built-in engine in its own process for the throughput benchmarks, with zero latency and
 * the reference policy plus the bench workloads' policies (a policy function can only be passed
 * to an in-process engine, so this child starts one). Prints the CLI's "listening on URL" line.
 * `--context N` sets the served context length (the agent-shape episodes need ~50k tokens).
 */
import { builtinReferenceBook } from "../packages/core/src/references.ts";
import { referencePolicy, startEngine } from "../packages/engine/src/index.ts";
import { agentShapePolicy } from "./lib/agent-shape.ts";
import { toolLoopPolicy } from "./lib/tool-loop.ts";

const at = process.argv.indexOf("--context");
const contextLength = at > 0 ? Number(process.argv[at + 1]) : undefined;
const reference = referencePolicy((await builtinReferenceBook()).answer);
const engine = await startEngine({
  policy: toolLoopPolicy(agentShapePolicy(reference)),
  latencyMs: 0,
  tokenLatencyMs: 0,
  ...(contextLength ? { contextLength } : {}),
});
process.stdout.write(`envroll engine listening on ${engine.url}\n`);
await new Promise<void>((resolve) => {
  process.once("SIGTERM", resolve);
  process.once("SIGINT", resolve);
  // The parent's end of stdin closes when the parent exits, even on SIGKILL.
  process.stdin.once("close", resolve);
  process.stdin.resume();
});
await engine.close();
