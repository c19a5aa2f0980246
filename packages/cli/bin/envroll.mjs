#!/usr/bin/env node
// Thin launcher: runs the TypeScript CLI through tsx so `npx envroll` works without a build step.
import { register } from "tsx/esm/api";

register();
await import("../src/main.ts");
