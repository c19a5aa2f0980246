// build-stamp.cjs for ES modules (scripts/build.mjs, the built packages' guard, tests).
export { assertBuiltIsCurrent, builtIsCurrent, STAMP_FILE, sourceStamp } from "./build-stamp.cjs";
