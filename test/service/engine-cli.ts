/**
 * Runs `envroll engine` through its own register function — for tests that need the built-in
 * engine regardless of how the main CLI entry wires its commands.
 *
 *   node --import tsx test/service/engine-cli.ts engine --port 0 --policy reference
 */
import { Command } from "commander";
import { registerEngineCommand } from "../../packages/cli/src/engine.ts";

const program = new Command().name("envroll");
registerEngineCommand(program);
await program.parseAsync(process.argv);
