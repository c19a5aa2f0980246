/**
 * `envroll serve <config.toml>`: the rollout service the Python `envroll_miles` package (the Miles
 * rollout function) talks to. Loads the environment once, then serves `/rollout` streams until
 * SIGINT/SIGTERM. Prints one parseable line, `envroll serve listening on <url>`, for launchers.
 */
import type { Command } from "commander";
import { openEnvironmentBackend } from "envroll/internal/service/environment-backend.ts";
import { startService } from "envroll/internal/service/server.ts";
import { trainClientFactory } from "envroll/internal/service/train-client-factory.ts";
import { signalExitCode, watchShutdown } from "./shutdown.ts";

interface ServeOptions {
  host: string;
  port: string;
  token?: string;
  stateDir?: string;
  evalConfig?: string;
  bodyLimit: string;
  requestTimeout: string;
  exitWithStdin?: boolean;
}

function nonNegativeInt(value: string, flag: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${flag} must be a non-negative integer, got ${value}`);
  return n;
}

export function registerServeCommand(program: Command): void {
  program
    .command("serve")
    .description("serve rollouts to Miles (envroll_miles) over HTTP: NDJSON groups of Miles samples")
    .argument("<config>", "environment config (env.toml)")
    .option("--host <host>", "bind address (non-loopback requires --token)", "127.0.0.1")
    .option("--port <n>", "port (0 = any free port)", "0")
    .option("--token <t>", "require Authorization: Bearer <t> (default: $ENVROLL_TOKEN)")
    .option("--state-dir <dir>", "persist the train task cursor here, one file per rollout step")
    .option("--eval-config <file>", "a separate environment config for eval requests")
    .option("--body-limit <bytes>", "largest accepted request body", String(1 << 20))
    .option(
      "--request-timeout <s>",
      "per engine /generate request, in seconds (0 = the transport's 1 h)",
      "0",
    )
    .option("--exit-with-stdin", "stop when standard input closes (the launching trainer died)")
    .action(async (config: string, o: ServeOptions) => {
      const backend = await openEnvironmentBackend(config, { evalConfigPath: o.evalConfig });
      const service = await startService({
        env: backend,
        makeClient: trainClientFactory(backend.model, {
          timeoutMs: nonNegativeInt(o.requestTimeout, "--request-timeout") * 1000 || undefined,
        }),
        host: o.host,
        port: nonNegativeInt(o.port, "--port"),
        token: o.token ?? process.env.ENVROLL_TOKEN ?? null,
        stateDir: o.stateDir ?? null,
        bodyLimit: nonNegativeInt(o.bodyLimit, "--body-limit"),
        log: (line) => process.stderr.write(`envroll serve: ${line}\n`),
      });
      const { tasksetId, numTasks, numEvalTasks } = backend.info;
      process.stderr.write(
        `envroll serve: ${tasksetId}: ${numTasks} train tasks, ${numEvalTasks} eval tasks\n`,
      );
      process.stdout.write(`envroll serve listening on ${service.url}\n`);
      // SIGINT/SIGTERM: drain, then exit 128 + signal with a message (a second signal exits at once).
      const shutdown = watchShutdown("envroll serve");
      await new Promise<void>((resolve) => {
        shutdown.signalled.then(() => resolve());
        // A trainer killed with SIGKILL runs no exit hook; its end of our stdin pipe still closes.
        if (o.exitWithStdin) {
          process.stdin.once("end", () => resolve());
          process.stdin.once("close", () => resolve());
          process.stdin.resume();
        }
      });
      // Abort and drain: in-flight requests hand their tasks back and save the cursor first.
      await service.close();
      await backend.close();
      process.stdin.destroy();
      shutdown.dispose();
      if (shutdown.signal) {
        process.stderr.write(
          `envroll serve: stopped by ${shutdown.signal}; unfinished groups were handed back to the task cursor\n`,
        );
        process.exitCode = signalExitCode(shutdown.signal);
      }
    });
}
