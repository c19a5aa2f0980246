/**
 * Run in a fresh process by lazy-schemas.test.ts (the test processes group several files, so
 * another file may already have built a schema): loads the config an eval of reverse-text
 * validates and prints which schemas were built before and after, as JSON.
 */
import { AcpSchema } from "../../../packages/core/src/config/acp-schema.ts";
import { McpServerSpecSchema } from "../../../packages/core/src/config/mcp-spec.ts";
import {
  EnvConfigSchema,
  EvalClientSchema,
  HarnessSchema,
  JudgeCommonSchema,
  PythonSchema,
  RetriesSchema,
  RuntimeSchema,
  TimeoutSchema,
} from "../../../packages/core/src/config/schema.ts";
import { ReferenceJudgeOptions } from "../../../packages/core/src/judges/reference.ts";
import { RubricJudgeOptions } from "../../../packages/core/src/judges/rubric.ts";
import { isBuilt } from "../../../packages/core/src/lazy-schema.ts";
import { loadConfig } from "../../../packages/core/src/loaders/config.ts";
import { MessageSchema, ToolSchema } from "../../../packages/core/src/types.ts";

const unused = {
  AcpSchema,
  McpServerSpecSchema,
  EvalClientSchema,
  RuntimeSchema,
  TimeoutSchema,
  RetriesSchema,
  PythonSchema,
  JudgeCommonSchema,
  MessageSchema,
  ToolSchema,
  ReferenceJudgeOptions,
  RubricJudgeOptions,
};
const all = { ...unused, EnvConfigSchema, HarnessSchema };
const built = (schemas: Record<string, object>) =>
  Object.entries(schemas)
    .filter(([, s]) => isBuilt(s))
    .map(([name]) => name);

const before = built(all);
// What `envroll eval reverse-text -n 1 -r 1 --engine URL` validates.
const config = await loadConfig(null, {
  "taskset.id": "reverse-text",
  "client.type": "train",
  "client.base_url": "http://127.0.0.1:30000",
  num_tasks: 1,
});
process.stdout.write(
  JSON.stringify({
    before,
    after: built(all),
    unused: Object.keys(unused),
    harness: config.harness.id,
    timeout: config.timeout,
    toolsets: config.toolsets,
  }),
);
