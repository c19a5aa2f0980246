/** The one HTTP layer of the interception server, the rollout service and the engine. */
export { bearerCheck, bearerToken, headerValue, isLoopback } from "./auth.ts";
export { jsonObjectOf, parseJsonText, readBody, readBodyBytes, readJson, readJsonObject } from "./body.ts";
export { HttpError, type HttpErrorCode } from "./error.ts";
export { guarded, type Handler, type ListenOptions, listen, pathOf, type RunningServer } from "./listen.ts";
export { sendEmpty, sendError, sendJson } from "./reply.ts";
export { type Match, Routes } from "./routes.ts";
