// cache-dir.cjs for ES modules (the tokenizer cache).
export { defaultCacheDir, readWhole } from "./cache-dir.cjs";
