/**
 * The `envroll` command line: a thin layer over the library. Each command lives in its own
 * file and registers itself here; the library never imports from src/cli. main.ts runs it
 * from source, the bundle (scripts/bundle-cli.mjs) when built.
 */
import { Command, CommanderError } from "commander";
import { stopWhenOrphaned } from "./orphan.ts";

type Register = (program: Command) => void;

/**
 * The commands in help order, each in its own file. Only the command being run is imported
 * (start-up: `eval` never loads the export, init or tokens code); help, `--version` and an
 * unknown command load them all, so help lists every one and commander's errors stay its own.
 */
const COMMANDS: [name: string, load: () => Promise<Register>][] = [
  ["eval", async () => (await import("./eval.ts")).registerEvalCommand],
  ["validate", async () => (await import("./validate.ts")).registerValidateCommand],
  ["init", async () => (await import("./init.ts")).registerInitCommand],
  ["export", async () => (await import("./export.ts")).registerExportCommand],
  ["serve", async () => (await import("./serve.ts")).registerServeCommand],
  ["engine", async () => (await import("./engine.ts")).registerEngineCommand],
  ["score", async () => (await import("./score.ts")).registerScoreCommand],
  ["replay", async () => (await import("./replay.ts")).registerReplayCommand],
  ["tokens", async () => (await import("./tokens.ts")).registerTokensCommand],
];

/** Runs the command line `argv` (node's, so the command is argv[2]); sets process.exitCode. */
export async function runCli(argv: readonly string[]): Promise<void> {
  const program = new Command();
  program
    .name("envroll")
    .description("Token-exact RL environments and rollouts: eval, serve rollouts to Miles, inspect tokens.")
    .version("0.1.0")
    // Commander's own errors (unknown command or option, missing argument) already say what was
    // wrong and, for a misspelling, the nearest name; a pointer to the help keeps that visible.
    .showHelpAfterError("(envroll --help lists the commands; envroll COMMAND --help their options)")
    // Commander would exit 1 from inside parse; a usage error is exit 2 like every other one.
    .exitOverride();

  stopWhenOrphaned();

  // Only a command name in first place picks one: `envroll --help eval` is the program's help.
  const chosen = COMMANDS.filter(([name]) => name === argv[2]);
  const registers = await Promise.all((chosen.length > 0 ? chosen : COMMANDS).map(([, load]) => load()));
  for (const register of registers) register(program);

  try {
    await program.parseAsync([...argv]);
  } catch (err) {
    if (err instanceof CommanderError) {
      // Already printed by commander. Help and --version asked for are results; help shown
      // because no command was given, and every parse error, are usage errors.
      process.exitCode = err.code === "commander.helpDisplayed" || err.code === "commander.version" ? 0 : 2;
      return;
    }
    // Commands throw typed errors with user-facing messages; never print a stack trace for them.
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`envroll: ${message}\n`);
    process.exitCode = process.exitCode || 2;
  }
}
