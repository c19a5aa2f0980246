export { ConfigError } from "../errors.ts";
export { canonicalPath, normalizeAliases, TOP_LEVEL_ALIASES } from "./aliases.ts";
export {
  applyOverrides,
  type ConfigOverrides,
  type ConfigSource,
  overrideValue,
  readConfigFile,
  tasksetFields,
} from "./load.ts";
export * from "./schema.ts";
