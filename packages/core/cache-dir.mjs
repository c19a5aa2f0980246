/**
 * The folder of envroll's caches (compiled tokenizers, the CLI's V8 code cache):
 * `ENVROLL_CACHE_DIR`, `off` for none, else envroll-cache-<uid> under the temp folder. Plain
 * JavaScript, so the CLI's bundle loader can use it before anything is compiled.
 */
import { tmpdir } from "node:os";
import { join } from "node:path";

export function defaultCacheDir() {
  const env = process.env.ENVROLL_CACHE_DIR;
  if (env === "off") return null;
  if (env) return env;
  return join(tmpdir(), `envroll-cache-${process.getuid?.() ?? "user"}`);
}
