/**
 * Field readers shared by the dialect parsers: every failure is an InterceptionError naming the
 * offending path (`input[2].content[0].type`), which the server answers with a 400.
 */
import { InterceptionError } from "../../errors.ts";
import type { Tool } from "../../types.ts";

export type Json = Record<string, any>;

export function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function fail(path: string, message: string): never {
  throw new InterceptionError(`${path}: ${message}`);
}

export function object(v: unknown, path: string): Json {
  if (!isObject(v)) fail(path, "expected an object");
  return v;
}

export function array(v: unknown, path: string): unknown[] {
  if (!Array.isArray(v)) fail(path, "expected an array");
  return v;
}

export function string(v: unknown, path: string): string {
  if (typeof v !== "string") fail(path, "expected a string");
  return v;
}

export function optionalString(v: unknown, path: string): string | undefined {
  return v == null ? undefined : string(v, path);
}

/** A request field this server cannot honour: refused, never silently ignored. */
export function refuseIfSet(body: Json, key: string, why: string): void {
  if (body[key] != null && body[key] !== false) fail(key, `not supported: ${why}`);
}

/** A function tool; `parameters` defaults to an empty object schema as the APIs do. */
export function functionTool(name: unknown, description: unknown, parameters: unknown, path: string): Tool {
  const tool: Tool = {
    name: string(name, `${path}.name`),
    description: optionalString(description, `${path}.description`) ?? "",
    parameters:
      parameters == null ? { type: "object", properties: {} } : object(parameters, `${path}.parameters`),
  };
  return tool;
}

/** A finite number from the request, or undefined when absent. */
export function optionalNumber(v: unknown, path: string): number | undefined {
  if (v == null) return undefined;
  if (typeof v !== "number" || !Number.isFinite(v)) fail(path, "expected a number");
  return v;
}

/** What a dialect does with one top-level request field (see each dialect's list). */
export type FieldPolicy = "used" | "ignored" | "refused";

/** Unknown top-level fields are a 400 naming them; a set `refused` one says why. */
export function checkFields(body: Json, policy: Record<string, FieldPolicy>, refusedWhy: string): void {
  const unknown = Object.keys(body).filter((k) => !Object.hasOwn(policy, k));
  if (unknown.length > 0)
    fail(
      unknown[0]!,
      `unknown request field${unknown.length > 1 ? `s ${unknown.map((k) => JSON.stringify(k)).join(", ")}` : ""}: envroll does not know what it would change, so it refuses rather than drop it`,
    );
  for (const [k, p] of Object.entries(policy)) if (p === "refused") refuseIfSet(body, k, refusedWhy);
}
