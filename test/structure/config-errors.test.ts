/**
 * Configuration is validated in one place (ARCHITECTURE.md, "Configuration is validated once"):
 * only the config schema's folder (config/: the schema, TOML reading, the key rules that need no
 * plugin) and the validator (loaders/: validateConfig and the plugin rules it applies) create a
 * ConfigError. Everything else receives a validated EnvConfig; a plugin reports problems through
 * a pure validator (a schema, `Taskset.checkConfig`, `Harness.requirements`, a registry lookup
 * that returns null) and the validator raises the error. A failure after validation is a
 * LoadError or the boundary's own error, never a ConfigError.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
/** The validator's folders: the only places a ConfigError may be created. */
export const VALIDATOR_FOLDERS = ["packages/core/src/config/", "packages/core/src/loaders/"];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === "node_modules") return [];
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(m?ts|m?js)$/.test(name) ? [path] : [];
  });
}

const PACKAGES = readdirSync(join(ROOT, "packages"))
  .map((p) => join(ROOT, "packages", p, "src"))
  .filter((dir) => statSync(dir, { throwIfNoEntry: false })?.isDirectory());

// Creating one (`new ConfigError(`) or a subclass that would pass for one.
const CREATES = /new\s+ConfigError\s*\(|extends\s+ConfigError\b/;

test("only the validator's folders create a ConfigError", () => {
  const outside: string[] = [];
  let inside = 0;
  for (const dir of PACKAGES)
    for (const file of sourceFiles(dir)) {
      const rel = relative(ROOT, file);
      const lines = readFileSync(file, "utf8").split("\n");
      lines.forEach((line, i) => {
        if (!CREATES.test(line)) return;
        if (VALIDATOR_FOLDERS.some((f) => rel.startsWith(f))) inside++;
        else outside.push(`${rel}:${i + 1}: ${line.trim()}`);
      });
    }
  assert.deepEqual(outside, [], `ConfigError created outside ${VALIDATOR_FOLDERS.join(", ")}`);
  // The scan sees the validator's own errors, so an empty `outside` is not a scan that read nothing.
  assert.ok(inside >= 10, `only ${inside} ConfigErrors found in the validator`);
});

test("the validator's folders are where ARCHITECTURE.md says configuration is validated", () => {
  const doc = readFileSync(join(ROOT, "ARCHITECTURE.md"), "utf8");
  const rule = /\*\*Configuration is validated once[\s\S]*?(?=\n- \*\*)/.exec(doc)?.[0] ?? "";
  assert.ok(rule !== "", "ARCHITECTURE.md has no 'Configuration is validated once' rule");
  for (const f of VALIDATOR_FOLDERS) {
    const folder = f.replace("packages/core/src/", "");
    assert.ok(rule.includes(`\`${folder}\``), `the rule names ${folder}`);
  }
  assert.match(rule, /test\/structure\/config-errors\.test\.ts/);
});
