/**
 * Variable scopes, one per `@huggingface/jinja` Environment: the render's globals, each `for`
 * loop's scope (a `set` in a loop body stays in the loop), each macro call's scope (whose parent
 * is the CALLER's scope: the library scopes macros dynamically). A name bound to undefined
 * still shadows outer bindings, as in the library.
 */

/** What one render of a compiled template needs beyond its variables. */
export interface Run {
  /** Message index of a caller's message value (by identity), or -1; null: no attribution markers. */
  messageIndex: ((v: unknown) => number) | null;
}

export class Scope {
  readonly vars = new Map<string, unknown>();
  readonly run: Run;

  constructor(
    readonly parent: Scope | null,
    run?: Run,
  ) {
    this.run = run ?? parent!.run;
  }

  lookup(name: string): unknown {
    for (let e: Scope | null = this; e; e = e.parent) {
      const v = e.vars.get(name);
      if (v !== undefined || e.vars.has(name)) return v;
    }
    return undefined;
  }
}
