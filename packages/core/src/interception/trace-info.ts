/**
 * Keys the interception layer adds to a trace's `info`. Kept apart from the session code so the
 * environment can read them without loading the interception server (imported on first use).
 */

/** Sampling keys a harness program sent that the engine does not accept (dropped, listed here). */
export const DROPPED_SAMPLING_INFO = "dropped_sampling_keys";
