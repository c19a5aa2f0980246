/**
 * This package's folder (packages/core in a checkout, node_modules/envroll when installed) and
 * the data files under it. Found by resolving the package's own name rather than from this
 * module's location, so the paths hold wherever the code runs from: src/ (tsx), dist/ (one
 * file per module), or inside the CLI's bundle (packages/cli/dist), whose chunks sit elsewhere.
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

// require.resolve, not import.meta.resolve: the CLI's bundle runs as CommonJS, where resolving
// as an ES module is asynchronous, and `./package.json` is exported under no condition, so both
// find the same file.
export const CORE_ROOT = dirname(createRequire(import.meta.url).resolve("envroll/package.json"));

/** A file under the package's data/ folder. */
export function coreDataPath(...parts: string[]): string {
  return join(CORE_ROOT, "data", ...parts);
}
