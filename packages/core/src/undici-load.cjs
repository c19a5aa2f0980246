/**
 * undici's parts, required at the first call rather than when the importing module loads.
 * CommonJS on purpose: from source (ESM) these are Node's own lazy requires, and the CLI bundle
 * (esbuild) turns each literal require() into one of its modules evaluated at that call, which
 * an ES module's static imports cannot be.
 */
let parts = null;

exports.loadUndici = () => {
  if (parts) return parts;
  const Dispatcher = require("undici/lib/dispatcher/dispatcher.js");
  // undici's entry installs the `request` API on every dispatcher; loaded by path, it is
  // installed here the same way (the entry's own assignment, should something load it, is the
  // same function).
  if (typeof Dispatcher.prototype.request !== "function")
    Dispatcher.prototype.request = require("undici/lib/api/api-request.js");
  parts = {
    Pool: require("undici/lib/dispatcher/pool.js"),
    Agent: require("undici/lib/dispatcher/agent.js"),
    errors: require("undici/lib/core/errors.js"),
  };
  return parts;
};
