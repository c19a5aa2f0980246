/**
 * The `envroll` command line: a thin layer over the library. Each command lives in its own
 * file and registers itself here; the library never imports from src/cli.
 */
import { Command } from "commander";
import { registerEngineCommand } from "./engine.ts";
import { registerEvalCommand } from "./eval.ts";
import { registerExportCommand } from "./export.ts";
import { registerInitCommand } from "./init.ts";
import { stopWhenOrphaned } from "./orphan.ts";
import { registerScoreCommand } from "./score.ts";
import { registerServeCommand } from "./serve.ts";
import { registerTokensCommand } from "./tokens.ts";
import { registerValidateCommand } from "./validate.ts";

const program = new Command();
program
  .name("envroll")
  .description("Token-exact RL environments and rollouts: eval, serve rollouts to Miles, inspect tokens.")
  .version("0.1.0")
  .showHelpAfterError();

stopWhenOrphaned();

// Command registrations (one line per command file).
registerEvalCommand(program);
registerValidateCommand(program);
registerInitCommand(program);
registerExportCommand(program);
registerServeCommand(program);
registerEngineCommand(program);
registerScoreCommand(program);
registerTokensCommand(program);

try {
  await program.parseAsync(process.argv);
} catch (err) {
  // Commands throw typed errors with user-facing messages; never print a stack trace for them.
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`envroll: ${message}\n`);
  process.exitCode = process.exitCode || 2;
}
