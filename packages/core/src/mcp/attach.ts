/**
 * What the interception server's MCP and state routes need to know about a rollout beyond its
 * session: its toolsets, its taskset's id and state schema. Kept beside the session (keyed by it)
 * rather than in it, so the session stays the model-call logic alone.
 */
import type { RolloutSession } from "../interception/session.ts";
import type { RolloutToolbox } from "./toolbox.ts";

export interface RolloutAttachments {
  toolbox: RolloutToolbox | null;
  tasksetId: string;
  /** Task row fields `GET /task` leaves out for the agent's credential (`Taskset.hiddenFields`). */
  hiddenFields?: readonly string[];
  /** Validates `PUT /state` bodies (the taskset's `stateSchema`). */
  stateSchema?: {
    safeParse(v: unknown): { success: true; data: unknown } | { success: false; error: { message: string } };
  };
}

const attached = new WeakMap<RolloutSession<any>, RolloutAttachments>();

export function attachRollout(session: RolloutSession<any>, a: RolloutAttachments): void {
  attached.set(session, a);
}

export function attachmentsOf(session: RolloutSession<any>): RolloutAttachments | undefined {
  return attached.get(session);
}
