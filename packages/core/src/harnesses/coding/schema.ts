/** A zod object schema as the plain JSON schema a model is shown (no `$schema` key). */
import { z } from "zod";

export function jsonSchema(s: z.ZodType): Record<string, unknown> {
  const { $schema: _drop, ...rest } = z.toJSONSchema(s, { target: "draft-7" }) as Record<string, unknown>;
  return rest;
}
