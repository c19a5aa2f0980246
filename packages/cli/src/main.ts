/** The `envroll` command run from source (the bin under tsx, `node --import tsx src/main.ts`). */
import { runCli } from "./program.ts";

await runCli(process.argv);
