/**
 * A route table: exact paths and patterns, each with its methods. Servers mount handlers here
 * instead of growing a switch, so features (dialects, MCP, state channels) plug in side by side.
 */
import { HttpError } from "./error.ts";

export interface Match<H> {
  handler: H;
  /** Capture groups of a pattern route (empty for an exact path). */
  params: string[];
}

export class Routes<H> {
  private readonly exact = new Map<string, Map<string, H>>();
  private readonly patterns: { pattern: RegExp; methods: Map<string, H> }[] = [];

  /** Adds a route; a second handler for the same method and path is a programming error. */
  add(method: string, path: string | RegExp, handler: H): this {
    let methods: Map<string, H>;
    if (typeof path === "string") {
      methods = this.exact.get(path) ?? new Map();
      this.exact.set(path, methods);
    } else {
      const found = this.patterns.find((p) => p.pattern.source === path.source);
      methods = found?.methods ?? new Map();
      if (!found) this.patterns.push({ pattern: path, methods });
    }
    if (methods.has(method)) throw new Error(`route ${method} ${path} is already mounted`);
    methods.set(method, handler);
    return this;
  }

  /** The handler for method and path; 404 for an unknown path, 405 for a known path's wrong method. */
  find(method: string, path: string): Match<H> {
    let methods = this.exact.get(path);
    let params: string[] = [];
    if (!methods) {
      for (const p of this.patterns) {
        const m = p.pattern.exec(path);
        if (m) {
          methods = p.methods;
          params = m.slice(1);
          break;
        }
      }
    }
    if (!methods) throw new HttpError(404, `no route ${method} ${path}`, { code: "no_route" });
    const handler = methods.get(method);
    if (handler === undefined) {
      const allowed = [...methods.keys()];
      throw new HttpError(405, `${path} takes ${allowed.join(" or ")}, not ${method}`, {
        code: "bad_method",
        allowed,
      });
    }
    return { handler, params };
  }
}
