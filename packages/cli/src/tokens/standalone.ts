/**
 * Entry point running only `envroll tokens …` (used by tests while, or where, the main CLI does
 * not register the command).
 */
import { Command } from "commander";
import { registerTokensCommand } from "../tokens.ts";

const program = new Command().name("envroll");
registerTokensCommand(program);
try {
  await program.parseAsync(process.argv);
} catch (err) {
  process.stderr.write(`envroll: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 2;
}
