/**
 * The CLI bundle's V8 code cache (read and written by dist/load.cjs, which compiles the bundle
 * through it). Compiling the bundle's JavaScript was a quarter of the CPU an eval spent before
 * its first model call; with the cache V8 deserializes the functions an earlier run of the same
 * command compiled instead of compiling them again. The cache is one file per command (so
 * `--help` does not decide what `eval` gets), keyed by the bundle's path, size and mtime and by
 * the Node version and architecture (V8 itself checks only the source's length and its flags);
 * it is written at exit by rename when it was missing or V8 refused it, replacing the entries
 * of earlier builds, and anything unreadable is a miss. `ENVROLL_CACHE_DIR=off` turns it off.
 *
 * Here rather than in the loader so that the bin can start both reads before it checks the
 * build stamps: the loader is build output, which only runs once the build is known current.
 */
"use strict";
const { createHash } = require("node:crypto");
const { mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } = require("node:fs");
const { join } = require("node:path");

const BUNDLE = join(__dirname, "..", "dist", "main.cjs");

const hash = (...parts) => createHash("sha256").update(parts.join("\0")).digest("hex").slice(0, 16);

/** `cli-<bundle path>-<command>-<build, Node>.v8`: a rebuild replaces its command's entry. */
function cacheFile(dir) {
  const st = statSync(BUNDLE);
  const command = /^[a-z][a-z-]*$/.test(process.argv[2] ?? "") ? process.argv[2] : "other";
  const prefix = `cli-${hash(BUNDLE)}-${command}-`;
  return {
    dir,
    prefix,
    file: join(dir, `${prefix}${hash(st.size, st.mtimeMs, process.version, process.arch)}.v8`),
  };
}

/**
 * Starts reading the bundle and this command's code cache on libuv's threads, which copy them
 * and fault their pages in (~13 µs a fresh page on the machines measured) while the main thread
 * works on. `cacheDir`: the library's cache-dir.cjs. `entry` is null without a cache folder;
 * each read gives undefined when the file cannot be read.
 */
function prefetch(cacheDir) {
  const dir = cacheDir.defaultCacheDir();
  let entry = null;
  try {
    if (dir !== null) entry = cacheFile(dir);
  } catch {
    // No bundle to stat: the loader reports it when it reads the bundle itself.
  }
  return {
    entry,
    reads: Promise.all([entry ? cacheDir.readWhole(entry.file) : undefined, cacheDir.readWhole(BUNDLE)]),
  };
}

function writeCache({ dir, prefix, file }, script) {
  try {
    mkdirSync(dir, { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, script.createCachedData());
    renameSync(tmp, file);
    // Entries of earlier builds of this bundle are dead (each rebuild has a new mtime).
    for (const name of readdirSync(dir))
      if (name.startsWith(prefix) && name.endsWith(".v8") && join(dir, name) !== file)
        rmSync(join(dir, name), { force: true });
  } catch {
    // A cache that cannot be written only costs the next start-up its speed.
  }
}

module.exports = { BUNDLE, prefetch, writeCache };
