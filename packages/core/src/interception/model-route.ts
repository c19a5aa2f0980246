/**
 * The one model-turn handler every dialect shares: parse with the dialect, run the turn through
 * the (dialect-blind) session, answer in the dialect. A stream carries the turn's text as it is
 * sampled (when the client streams), but its terminal events are written only after
 * `session.complete` returned, i.e. after the turn is committed to the trace, so no program can
 * see its turn end before the turn is recorded.
 */

import type { StreamDelta } from "../clients/client.ts";
import { errorMessage, relayStatus } from "../errors.ts";
import { HttpError, sendJson } from "../http/index.ts";
import type { Dialect } from "./dialects/dialect.ts";
import { ResentRequest } from "./resent-request.ts";
import type { InterceptionRoute } from "./route.ts";
import type { RolloutSession } from "./session.ts";
import { SseStream } from "./sse-stream.ts";

export interface ModelRouteOptions {
  /** Idle time after which a pending stream starts sending keepalive comments. */
  keepaliveMs: number;
  /** Parse a resent history past what it shares with the rollout's last request (resent-request.ts). */
  reuseResent: boolean;
  /** Bodies parsed that way, and history elements they took from the last request (diagnostics). */
  resent?: { bodies: number; reusedElements: number };
}

export function modelRoute(dialect: Dialect, options: ModelRouteOptions): InterceptionRoute {
  // Per rollout, its last request in this dialect; gone with the session.
  const resent = new WeakMap<RolloutSession<any>, ResentRequest>();
  const resentOf = (session: RolloutSession<any>) => {
    let r = resent.get(session);
    if (!r) {
      r = new ResentRequest(dialect.historyKey);
      resent.set(session, r);
    }
    return r;
  };
  return {
    method: "POST",
    path: dialect.path,
    secret: dialect.secret,
    errorBody: dialect.errorBody,
    async handle({ session, json, bytes, res }) {
      const last = options.reuseResent ? resentOf(session) : null;
      const body = last ? last.body.parse(await bytes()) : await json();
      if (last && options.resent) {
        options.resent.bodies++;
        options.resent.reusedElements += last.body.reused;
      }
      let request: ReturnType<Dialect["parse"]>;
      try {
        request = dialect.parse(body, {
          refuseHostedTools: session.refuseHostedTools,
          ...(last ? { translated: last.translated } : {}),
        });
      } catch (e) {
        // A malformed request is the program's bug: tell it, without touching the rollout.
        throw new HttpError(400, errorMessage(e));
      }
      last?.intern(request);
      session.noteDialect(dialect.name, request.stream);
      if (request.droppedTools) session.noteDroppedTools(request.droppedTools);
      const model = request.model ?? session.model;
      // Fires when the program leaves before the answer is written (its SDK timed out): a re-send
      // of the same request then gets this turn instead of a second sample (see resends.ts).
      const gone = new AbortController();
      res.once("close", () => {
        if (!res.writableFinished) gone.abort();
      });
      const messages = session.restoreAnswered(request.messages);
      const turn = async (onDelta?: (delta: StreamDelta) => void) => {
        const result = await session.complete(
          messages,
          request.tools,
          request.sampling,
          gone.signal,
          onDelta,
        );
        if (result.kind === "completion")
          session.noteAnswered(result.response.message, dialect.echoArguments);
        return result;
      };
      if (!request.stream) {
        const result = await turn();
        if (result.kind === "stopped") throw new HttpError(400, `rollout stopped: ${result.reason}`);
        return sendJson(res, 200, dialect.respond(result.response, request, model));
      }
      const stream = new SseStream(res, options.keepaliveMs);
      const live = dialect.live(request, model);
      let result: Awaited<ReturnType<typeof turn>>;
      try {
        // Deltas go out as the turn is sampled; the terminal events only after the commit below.
        result = await turn((delta) => stream.write(live.delta(delta)));
      } catch (e) {
        stream.settle();
        if (!stream.started) throw e;
        const type = relayStatus(e) === 400 ? "invalid_request_error" : "provider_error";
        return stream.end(dialect.errorEvent(errorMessage(e), type));
      }
      stream.settle();
      if (result.kind === "stopped") {
        const message = `rollout stopped: ${result.reason}`;
        if (!stream.started) throw new HttpError(400, message);
        return stream.end(dialect.errorEvent(message, "invalid_request_error"));
      }
      const rest = live.finish(result.response);
      if (live.diverged) session.noteStreamDiverged();
      stream.end(rest);
    },
  };
}
