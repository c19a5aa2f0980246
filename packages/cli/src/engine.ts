/**
 * `envroll engine`: run the built-in SGLang-protocol engine (a stand-in for SGLang, not a model)
 * until interrupted. Binds 127.0.0.1 unless told otherwise; any other host requires --token.
 */

import { parseFaultKinds, startEngine } from "@envroll/engine/internal/index.ts";
import type { Command } from "commander";
import { builtinReferenceBook } from "envroll/internal/references.ts";

interface EngineCliOptions {
  model?: string;
  host: string;
  port: string;
  policy: string;
  workers: string;
  routerPolicy: string;
  faultRate: string;
  faults: string;
  latencyMs: string;
  tokenLatencyMs: string;
  token?: string;
  maxRunningRequests?: string;
  seed: string;
  contextLength: string;
  incrementalStreaming?: boolean;
  returnOriginalLogprob?: boolean;
}

export function registerEngineCommand(program: Command): void {
  program
    .command("engine")
    .description("Serve SGLang's native /generate API from a protocol-faithful stand-in engine (not a model)")
    .option(
      "--model <folder>",
      "checkpoint folder to serve (tokenizer.json, tokenizer_config.json, chat_template.jinja); default: Qwen3",
    )
    .option("--host <host>", "bind address (non-loopback requires --token)", "127.0.0.1")
    .option("--port <n>", "port (0 = any free port)", "30000")
    .option(
      "--policy <policy>",
      "reply policy: echo | reference (the built-in tasksets' reference solutions) | judge | replay:<file.jsonl>",
      "echo",
    )
    .option("--workers <k>", "run K workers behind a consistent-hash router (0 = single server)", "0")
    .option(
      "--router-policy <p>",
      "router policy: consistent_hashing | manual | round_robin | random",
      "consistent_hashing",
    )
    .option("--fault-rate <f>", "probability of a fault per /generate request", "0")
    .option("--faults <list>", "fault kinds: 5xx,429,408,reset,stall,abort", "5xx,429,408,reset,stall,abort")
    .option("--max-running-requests <n>", "per-worker limit; beyond it /generate answers 503")
    .option("--latency-ms <m>", "delay before the first token of each request", "0")
    .option("--token-latency-ms <m>", "delay per generated token", "0")
    .option("--token <t>", "require Authorization: Bearer <t> on every endpoint")
    .option("--seed <n>", "seed for logprobs, reply noise and faults", "0")
    .option("--context-length <n>", "model context length", "40960")
    .option("--incremental-streaming", "stream deltas instead of cumulative chunks")
    .option("--return-original-logprob", "report pre-temperature logprobs")
    .action(async (o: EngineCliOptions) => {
      const engine = await startEngine({
        model: o.model,
        host: o.host,
        port: int(o.port, "--port"),
        policy: o.policy,
        reference: o.policy === "reference" ? (await builtinReferenceBook()).answer : undefined,
        workers: int(o.workers, "--workers"),
        routerPolicy: oneOf(o.routerPolicy, ROUTER_POLICIES, "--router-policy"),
        faults: { rate: num(o.faultRate, "--fault-rate"), kinds: parseFaultKinds(o.faults) },
        latencyMs: num(o.latencyMs, "--latency-ms"),
        tokenLatencyMs: num(o.tokenLatencyMs, "--token-latency-ms"),
        token: o.token,
        maxRunningRequests:
          o.maxRunningRequests === undefined
            ? undefined
            : int(o.maxRunningRequests, "--max-running-requests"),
        seed: int(o.seed, "--seed"),
        contextLength: int(o.contextLength, "--context-length"),
        incrementalStreaming: o.incrementalStreaming,
        returnOriginalLogprob: o.returnOriginalLogprob,
      });
      // One parseable line on stdout so scripts and tests can find the URL.
      process.stdout.write(`envroll engine listening on ${engine.url}\n`);
      if (engine.workerUrls.length > 1 || engine.workerUrls[0] !== engine.url) {
        process.stdout.write(`workers: ${engine.workerUrls.join(" ")}\n`);
      }
      await new Promise<void>((resolve) => {
        const stop = () => resolve();
        process.once("SIGINT", stop);
        process.once("SIGTERM", stop);
      });
      await engine.close();
    });
}

const ROUTER_POLICIES = ["consistent_hashing", "manual", "round_robin", "random"] as const;

function oneOf<T extends string>(value: string, allowed: readonly T[], flag: string): T {
  if (!(allowed as readonly string[]).includes(value))
    throw new Error(`${flag} must be one of ${allowed.join(", ")}`);
  return value as T;
}

function num(value: string, flag: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${flag} must be a non-negative number, got ${value}`);
  return n;
}

function int(value: string, flag: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${flag} must be a non-negative integer, got ${value}`);
  return n;
}
