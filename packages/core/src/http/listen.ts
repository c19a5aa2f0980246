/** Starting and stopping a node:http server, and the one place a handler's failure is caught. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<void> | void;

export interface ListenOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** Idle keep-alive; agents and engines keep connections open between turns. */
  keepAliveTimeout?: number;
  /** Bounds only the upload of a request (not a long generation or stream). */
  requestTimeout?: number;
  headersTimeout?: number;
}

export interface RunningServer {
  server: Server;
  /** `http://host:port` (IPv6 hosts in brackets). */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** A request handler whose failures (thrown or rejected) go to `onError` instead of crashing. */
export function guarded(
  handler: Handler,
  onError: (err: unknown, req: IncomingMessage, res: ServerResponse) => void,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    try {
      const done = handler(req, res);
      if (done) done.catch((err) => onError(err, req, res));
    } catch (err) {
      onError(err, req, res);
    }
  };
}

export function listen(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  opts: ListenOptions,
  onClose?: () => void,
): Promise<RunningServer> {
  const server = createServer(
    {
      keepAliveTimeout: opts.keepAliveTimeout ?? 65_000,
      requestTimeout: opts.requestTimeout ?? 300_000,
      headersTimeout: opts.headersTimeout ?? 60_000,
    },
    handler,
  );
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, opts.host, () => {
      const addr = server.address() as AddressInfo;
      const hostPart = addr.family === "IPv6" ? `[${addr.address}]` : addr.address;
      resolve({
        server,
        url: `http://${hostPart}:${addr.port}`,
        port: addr.port,
        close: () =>
          new Promise<void>((done) => {
            onClose?.();
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}

/** The request's path without its query string. */
export function pathOf(req: IncomingMessage): string {
  const url = req.url ?? "/";
  const q = url.indexOf("?");
  return q < 0 ? url : url.slice(0, q);
}
