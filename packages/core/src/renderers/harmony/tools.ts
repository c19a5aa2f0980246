/**
 * The gpt-oss tools block: function tools as a TypeScript-like `namespace functions { … }`, byte
 * for byte as the gpt-oss chat template writes it (its `render_tool_namespace` and
 * `render_typescript_type` macros), Jinja quirks included — the few places where the template's
 * whitespace leaks into the output (a nested object's member types, a oneOf variant's default),
 * and a `oneOf` "has object variants" flag that Jinja's loop scoping never lets become true.
 * Where the template would raise (a string joined to a non-string), this raises naming the field.
 */

import { pyJsonDumps } from "../../text/py-json.ts";
import { jinjaStr } from "../common/messages.ts";
import type { RenderTool } from "../renderer.ts";

type Spec = Record<string, unknown>;

function isRecord(x: unknown): x is Spec {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

/** Python truthiness, as the template's `{% if x %}` tests it. */
function truthy(x: unknown): boolean {
  if (x === null || x === undefined || x === false || x === 0 || x === "") return false;
  if (Array.isArray(x)) return x.length > 0;
  if (isRecord(x)) return Object.keys(x).length > 0;
  return true;
}

/** `"…" + x` in the template: a string, or the error Python's `+` raises. */
function str(x: unknown, where: string): string {
  if (typeof x === "string") return x;
  throw new Error(
    `gpt-oss render: ${where} must be a string (the gpt-oss template joins it to text), got ${x === undefined ? "nothing" : JSON.stringify(x)}`,
  );
}

function requiredList(spec: Spec): unknown[] {
  return Array.isArray(spec.required) ? spec.required : [];
}

/** `render_typescript_type(param_spec, …)`. */
export function typescriptType(spec: unknown, where: string): string {
  const s = isRecord(spec) ? spec : {};
  const nullable = truthy(s.nullable) ? " | null" : "";
  if (s.type === "array") {
    const items = s.items;
    if (!truthy(items)) return `any[]${nullable}`;
    const itemType = isRecord(items) ? items.type : undefined;
    let out: string;
    if (itemType === "string") out = "string[]";
    else if (itemType === "number" || itemType === "integer") out = "number[]";
    else if (itemType === "boolean") out = "boolean[]";
    else {
      const inner = typescriptType(items, `${where}.items`);
      out = inner === "object | object" || [...inner].length > 50 ? "any[]" : `${inner}[]`;
    }
    return out + nullable;
  }
  if (Array.isArray(s.type) && s.type.length > 0) {
    return s.type.length > 1 ? s.type.map(jinjaStr).join(" | ") : jinjaStr(s.type[0]);
  }
  if (truthy(s.oneOf)) return oneOfType(s.oneOf, where);
  if (s.type === "string") {
    if (truthy(s.enum)) {
      const values = Array.isArray(s.enum) ? s.enum.map(jinjaStr) : [...jinjaStr(s.enum)];
      return `"${values.join('" | "')}"`;
    }
    return `string${nullable}`;
  }
  if (s.type === "number" || s.type === "integer") return "number";
  if (s.type === "boolean") return "boolean";
  if (s.type === "object") {
    if (!truthy(s.properties) || !isRecord(s.properties)) return "object";
    const required = requiredList(s);
    const members = Object.entries(s.properties).map(
      // The template's own whitespace between `": "` and the member type reaches the output.
      ([name, prop]) =>
        `${name}${required.includes(name) ? "" : "?"}: \n                ${typescriptType(prop, `${where}.${name}`)}`,
    );
    return `{\n${members.join(", ")}}`;
  }
  return "any";
}

function oneOfType(variants: unknown, where: string): string {
  const list = Array.isArray(variants) ? variants : [];
  let out = "";
  list.forEach((v, i) => {
    const variant = isRecord(v) ? v : {};
    out += typescriptType(variant, `${where}.oneOf[${i}]`);
    if (truthy(variant.description))
      out += "// " + str(variant.description, `${where}.oneOf[${i}].description`);
    if ("default" in variant) out += `                    // default: ${pyJsonDumps(variant.default)}`;
    if (i < list.length - 1) out += " | \n";
  });
  return out;
}

/** The function of a tool in either accepted shape (`{type, function: {…}}` or bare). */
function toolFunction(tool: RenderTool): Spec {
  return isRecord(tool.function) ? tool.function : tool;
}

/** `render_tool_namespace("functions", tools)`. */
export function toolNamespace(tools: readonly RenderTool[]): string {
  let out = "## functions\n\nnamespace functions {\n\n";
  tools.forEach((tool, t) => {
    const fn = toolFunction(tool);
    const name = str(fn.name, `tools[${t}].name`);
    out += `// ${str(fn.description, `tools[${t}] (${name}).description`)}\ntype ${name} = `;
    const params = isRecord(fn.parameters) ? fn.parameters : null;
    if (!params || !truthy(params.properties) || !isRecord(params.properties)) {
      out += "() => any;\n\n";
      return;
    }
    out += "(_: {\n";
    const required = requiredList(params);
    for (const [pname, pspec] of Object.entries(params.properties)) {
      const where = `tools[${t}] (${name}).parameters.properties.${pname}`;
      const spec = isRecord(pspec) ? pspec : {};
      if (truthy(spec.description)) out += `// ${str(spec.description, `${where}.description`)}\n`;
      out += `${pname}${required.includes(pname) ? "" : "?"}: ${typescriptType(spec, where)}`;
      if ("default" in spec) {
        if (truthy(spec.enum)) out += `, // default: ${str(spec.default, `${where}.default`)}`;
        else if (truthy(spec.oneOf)) out += `// default: ${str(spec.default, `${where}.default`)}`;
        else out += `, // default: ${pyJsonDumps(spec.default)}`;
      }
      out += ",\n";
    }
    out += "}) => any;\n\n";
  });
  return `${out}} // namespace functions`;
}
