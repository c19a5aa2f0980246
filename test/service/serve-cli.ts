/**
 * Runs `envroll serve` through registerServeCommand alone — for tests, so they do not depend on
 * how the main CLI entry wires its commands.
 *
 *   node --import tsx test/service/serve-cli.ts serve <config.toml> [--port 0] [--state-dir DIR]
 */
import { Command } from "commander";
import { registerServeCommand } from "../../packages/cli/src/serve.ts";

const program = new Command().name("envroll");
registerServeCommand(program);
try {
  await program.parseAsync(process.argv);
} catch (err) {
  process.stderr.write(`envroll: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 2;
}
