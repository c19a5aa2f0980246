/**
 * Declaring MCP servers as toolsets or as the user simulator (Verifiers V1 `ToolsetConfig`,
 * `SharedToolsetConfig`, `UserConfig`): a command speaking MCP over stdio, started per rollout
 * or once per worker, on the host or inside the rollout's runtime (`colocated`); or the URL of a
 * streamable-HTTP server that already runs. The same shape is a taskset field (`toolsets`,
 * `userServer`) and a config table (`[[toolsets]]`), checked by one schema.
 */
import { z } from "zod";
import { ConfigError } from "../errors.ts";
import { lazySchema } from "../lazy-schema.ts";

const strings = () =>
  z.record(z.string(), z.string({ error: "expected a string" }), {
    error: "expected a table of strings",
  });

/** Tool names are `<server>_<tool>`, so a server name is one identifier-like word. */
export const SERVER_NAME = /^[A-Za-z][A-Za-z0-9_-]*$/;

/** Built on first use (lazy-schema.ts): most configs declare no MCP server. */
export const McpServerSpecSchema = lazySchema(() =>
  z
    .strictObject({
      name: z
        .string()
        .regex(SERVER_NAME, { error: "expected a name of letters, digits, _ or - (a tool prefix)" }),
      /** argv of a program speaking MCP on stdin/stdout. */
      command: z.array(z.string(), { error: "expected an argv array of strings" }).min(1).optional(),
      /** A streamable-HTTP MCP endpoint that already runs (used as is: no launch, no state). */
      url: z.url({ protocol: /^https?$/ }).optional(),
      /** Sent with every request to `url`. */
      headers: strings().default({}),
      /** Extra environment of `command`. */
      env: strings().default({}),
      /** Working directory of a host `command` (default: the eval's). */
      cwd: z.string().optional(),
      /** "rollout": one process per rollout, with its state channel; "worker": one per eval, shared. */
      scope: z.enum(["rollout", "worker"]).default("rollout"),
      /** Run `command` inside the rollout's runtime (the sandbox, when that is the runtime). */
      colocated: z.boolean().default(false),
      /** Per-request limit for calls to this server. */
      timeout_s: z.number().positive().default(600),
    })
    .superRefine((s, ctx) => {
      if ((s.command === undefined) === (s.url === undefined))
        ctx.addIssue({ code: "custom", message: "give exactly one of command or url", path: ["command"] });
      if (s.colocated && s.command === undefined)
        ctx.addIssue({ code: "custom", message: "colocated needs a command", path: ["colocated"] });
      if (s.colocated && s.scope === "worker")
        ctx.addIssue({
          code: "custom",
          message: 'a colocated server lives in one rollout\'s runtime: use scope = "rollout"',
          path: ["scope"],
        });
    }),
);

export type McpServerSpec = z.output<typeof McpServerSpecSchema>;
export type McpServerInput = z.input<typeof McpServerSpecSchema>;

/** Parses a declaration; a ConfigError names the key (`where` is its path, e.g. `toolsets[0]`). */
export function parseServerSpec(raw: unknown, where: string): McpServerSpec {
  const r = McpServerSpecSchema.safeParse(raw);
  if (r.success) return r.data;
  const first = r.error.issues[0]!;
  const path = [where, ...first.path.map(String)].join(".");
  throw new ConfigError(
    r.error.issues.map((i) => `${[where, ...i.path.map(String)].join(".")}: ${i.message}`).join("; "),
    { path },
  );
}

/** V1's default tool prefix: snake_case of a name (`tool-math` → `tool_math`, `GlossaryToolset` → `glossary_toolset`). */
export function snakeCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/[^A-Za-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "")
    .toLowerCase();
}
