#!/usr/bin/env node
// The `envroll` command as an ES module (docs, scripts and benches run `node …/bin/envroll.mjs`):
// the CommonJS bin, envroll.cjs, which the package's `bin` names.
import "./envroll.cjs";
