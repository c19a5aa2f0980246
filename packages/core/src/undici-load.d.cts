import type * as Undici from "undici";

export function loadUndici(): {
  Pool: typeof Undici.Pool;
  Agent: typeof Undici.Agent;
  errors: typeof Undici.errors;
};
