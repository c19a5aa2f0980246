/**
 * The folder of envroll's caches (compiled tokenizers, the CLI's V8 code cache):
 * `ENVROLL_CACHE_DIR`, `off` for none, else envroll-cache-<uid> under the temp folder; and how
 * start-up reads its large files ahead. Plain JavaScript, so the CLI's bin and bundle loader can
 * use it before anything is compiled; CommonJS, so the bin starts without Node's ES-module
 * loader (cache-dir.mjs re-exports it for ES modules).
 */
"use strict";
const { closeSync, fstatSync, openSync, read } = require("node:fs");
const { tmpdir } = require("node:os");
const { join } = require("node:path");

function defaultCacheDir() {
  const env = process.env.ENVROLL_CACHE_DIR;
  if (env === "off") return null;
  if (env) return env;
  return join(tmpdir(), `envroll-cache-${process.getuid?.() ?? "user"}`);
}

/**
 * The bytes of `file`, or undefined when it cannot be read: one read request on libuv's threads,
 * which copy the file and fault its pages in while the main thread works on. fs.readFile reads
 * 512 KB at a time and needs the main thread between chunks, so a start-up that kept it busy got
 * most of a multi-megabyte cache entry only once it waited for it.
 */
function readWhole(file) {
  return new Promise((resolve) => {
    let fd = -1;
    try {
      fd = openSync(file, "r");
      const size = fstatSync(fd).size;
      const buf = Buffer.allocUnsafeSlow(size);
      read(fd, buf, 0, size, 0, (err, n) => {
        closeSync(fd);
        resolve(err || n !== size ? undefined : buf);
      });
    } catch {
      try {
        if (fd >= 0) closeSync(fd);
      } catch {}
      resolve(undefined);
    }
  });
}

exports.defaultCacheDir = defaultCacheDir;
exports.readWhole = readWhole;
