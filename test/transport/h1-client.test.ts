/**
 * The keep-alive HTTP/1.1 client behind `/generate` on plain HTTP, against raw sockets that write
 * exact bytes: every framing a server may use, heads split across packets, connections the server
 * closes, a pool smaller than the load, and cuts while queued or in flight.
 */
import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import { createServer, type Server, type Socket } from "node:net";
import { test } from "node:test";
import { H1Client } from "../../packages/core/src/transport/h1.ts";
import { ReplyReader } from "../../packages/core/src/transport/h1-reply.ts";
import { createGeneratePool, exchange } from "../../packages/core/src/transport/http.ts";

interface RawServer {
  port: number;
  connections: () => number;
  close(): Promise<void>;
}

/** A server that answers each request (one per `\r\n\r\n`-terminated head + body) with `reply(n)`. */
async function rawServer(
  reply: (n: number, socket: Socket) => (string | Buffer)[] | null,
): Promise<RawServer> {
  let count = 0;
  let conns = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    conns++;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    let buf = "";
    socket.on("data", (d) => {
      buf += d.toString("latin1");
      for (;;) {
        const end = buf.indexOf("\r\n\r\n");
        if (end < 0) return;
        const len = Number(/content-length: (\d+)/i.exec(buf.slice(0, end))?.[1] ?? 0);
        if (buf.length < end + 4 + len) return;
        buf = buf.slice(end + 4 + len);
        const parts = reply(count++, socket);
        if (parts === null) continue;
        // Each part is its own write (and, with a pause, its own packet).
        parts.forEach((p, i) => {
          setTimeout(() => socket.writable && socket.write(p), i * 5);
        });
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    port: (server.address() as { port: number }).port,
    connections: () => conns,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

const json = (body: string, extra = "") =>
  `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n${extra}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

function pool(port: number, connections = 4): H1Client {
  const p = createGeneratePool(`http://127.0.0.1:${port}`, connections, 5_000);
  assert.ok(p instanceof H1Client, "plain http gets the keep-alive client");
  return p;
}

/** Runs `body` on a pool of `connections` to `server`, then closes the pool and the server. */
async function withPool(
  server: RawServer,
  connections: number,
  body: (p: H1Client) => Promise<void>,
): Promise<void> {
  const p = pool(server.port, connections);
  try {
    await body(p);
  } finally {
    await p.destroy();
    await server.close();
  }
}

const post = (p: H1Client, body = '{"x":1}', signal?: AbortSignal, timeoutMs = 10_000) =>
  exchange(p, {
    method: "POST",
    path: "/generate",
    body,
    headers: { "content-type": "application/json" },
    timeoutMs,
    signal,
  });

test("content-length, chunked (split anywhere, extensions, trailers) and until-close bodies read whole", async () => {
  const body = '{"text":"héllo wörld 😀","ids":[1,2,3]}';
  const bytes = Buffer.from(body);
  const whole = Buffer.from(json(body));
  const replies: (string | Buffer)[][] = [
    // Head and body split mid-header and mid-character.
    [whole.subarray(0, 20), whole.subarray(20, 60), whole.subarray(60)],
    [
      "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n",
      Buffer.concat([Buffer.from("a;ext=1\r\n"), bytes.subarray(0, 10), Buffer.from("\r\n")]),
      `${(bytes.length - 10).toString(16)}\r\n`,
      Buffer.concat([bytes.subarray(10), Buffer.from("\r\n0\r\nx-trailer: 1\r\n\r\n")]),
    ],
    ["HTTP/1.1 100 Continue\r\n\r\n", json(body)],
    [`HTTP/1.1 200 OK\r\nconnection: close\r\n\r\n${body}`],
  ];
  const server = await rawServer((n, socket) => {
    if (n === 3) setTimeout(() => socket.end(), 50);
    return replies[n]!;
  });
  await withPool(server, 4, async (p) => {
    for (let n = 0; n < replies.length; n++) {
      const r = await post(p);
      assert.equal(r.status, 200, `reply ${n}`);
      assert.equal(r.text, body, `reply ${n}`);
    }
  });
});

test("sequential requests reuse one connection; a connection the server closed is replaced, not failed", async () => {
  const server = await rawServer((n, socket) => {
    // The second reply closes its connection right after it (as a server's keep-alive timeout would).
    if (n === 1) setTimeout(() => socket.end(), 20);
    return [json(`{"n":${n}}`)];
  });
  await withPool(server, 4, async (p) => {
    assert.equal((await post(p)).text, '{"n":0}');
    assert.equal((await post(p)).text, '{"n":1}');
    assert.equal(server.connections(), 1);
    await new Promise((r) => setTimeout(r, 100));
    assert.equal((await post(p)).text, '{"n":2}');
    assert.equal(server.connections(), 2);
  });
});

test("more requests than connections queue; a queued request can be cut without harming the others", async () => {
  const server = await rawServer((n) => [json(`{"n":${n}}`)]);
  await withPool(server, 2, async (p) => {
    const cut = new AbortController();
    const all = Array.from({ length: 8 }, (_, i) => post(p, `{"i":${i}}`, i === 7 ? cut.signal : undefined));
    cut.abort();
    const settled = await Promise.allSettled(all);
    assert.equal(settled.filter((s) => s.status === "fulfilled").length, 7);
    assert.equal((settled[7] as PromiseRejectedResult).reason.name, "RequestCancelledError");
    assert.ok(server.connections() <= 2, `${server.connections()} connections`);
  });
});

test("a stalled reply is cut by its timeout and the connection is not reused; a UTF-8 BOM is dropped", async () => {
  const server = await rawServer((n) => (n === 0 ? null : [json('\uFEFF{"ok":true}')]));
  await withPool(server, 1, async (p) => {
    await assert.rejects(post(p, "{}", undefined, 200), { name: "ProviderTimeoutError" });
    const r = await post(p);
    assert.equal(r.text, '{"ok":true}');
    assert.equal(server.connections(), 2);
  });
});

test("garbage instead of a status line and a reset mid-body are connection errors; header injection is refused", async () => {
  const server = await rawServer((n, socket) => {
    if (n === 0) return ["SPDY/3 ok\r\n\r\n"];
    socket.write('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n{"partial":');
    setTimeout(() => socket.destroy(), 20);
    return null;
  });
  await withPool(server, 4, async (p) => {
    await assert.rejects(post(p), { name: "ProviderConnectionError", message: /bad status line/ });
    await assert.rejects(post(p), { name: "ProviderConnectionError", message: /closed/ });
    await assert.rejects(
      exchange(p, {
        method: "POST",
        path: "/generate",
        body: "{}",
        headers: { "x-a": "1\r\nx-b: 2" },
        timeoutMs: 1000,
      }),
      { code: "ERR_HTTP_INVALID_HEADER" },
    );
  });
});

test("a request cut in the tick it was made is never written: the idle connection serves the next one", async () => {
  const server = await rawServer((n) => [json(`{"n":${n}}`)]);
  await withPool(server, 1, async (p) => {
    assert.equal((await post(p)).text, '{"n":0}');
    const cut = new AbortController();
    const cutCall = post(p, '{"cut":true}', cut.signal);
    cut.abort();
    await assert.rejects(cutCall, { name: "RequestCancelledError" });
    // Written at once, the cut request would have cost the connection (a cut in flight destroys
    // it) and the server would have counted it.
    assert.equal((await post(p)).text, '{"n":1}');
    assert.equal(server.connections(), 1);
  });
});

test("head fields are read in any case and spacing; a bad content-length or header line is a parse error", () => {
  const read = (head: string, body = "") => {
    const bytes = Buffer.from(`${head}\r\n\r\n${body}`, "latin1");
    const r = new ReplyReader();
    r.reset(false);
    return r.push(bytes, bytes.length);
  };
  const a = read("HTTP/1.1 200 OK\r\nCONTENT-LENGTH:  2 \r\nKeep-Alive: timeout=5\r\nRetry-After: 3", "{}");
  assert.equal(a?.reply.text, "{}");
  assert.equal(a?.reusable, true);
  assert.equal(a?.keepAliveMs, 4000);
  assert.equal(a?.reply.retryAfter, "3");
  const b = read(
    "HTTP/1.1 503 Busy\r\ncontent-length: 0\r\nretry-after: 1\r\nRetry-After: 2\r\nConnection: Close",
  );
  assert.equal(b?.reply.status, 503);
  assert.equal(b?.reply.retryAfter, null, "a repeated retry-after has no single value");
  assert.equal(b?.reusable, false);
  const c = read("HTTP/1.0 200\r\ncontent-length: 1", "x");
  assert.equal(c?.reusable, false, "HTTP/1.0 closes unless it says keep-alive");
  assert.equal(read("HTTP/1.0 200\r\nConnection: keep-alive\r\nContent-Length: 1", "x")?.reusable, true);
  assert.throws(() => read("HTTP/1.1 200 OK\r\ncontent-length: 1x"), { message: "bad content-length" });
  assert.throws(() => read("HTTP/1.1 200 OK\r\ncontent-length: 1\r\nContent-Length: 2"), {
    message: "bad content-length",
  });
  assert.throws(() => read("HTTP/1.1 200 OK\r\nno colon here"), { message: "bad header line" });
  assert.throws(() => read("HTTP/1.1 200 OK\r\n: empty name"), { message: "bad header line" });
  assert.throws(() => read("HTTP/2 200"), { message: /bad status line/ });
});

test("a large body goes out after its head unchanged (not copied into one buffer), then a small one on the same connection", async () => {
  const received: Buffer[] = [];
  let pending = Buffer.alloc(0);
  const server: Server = createServer((socket) => {
    socket.on("data", (d) => {
      pending = Buffer.concat([pending, d]);
      for (;;) {
        const end = pending.indexOf("\r\n\r\n");
        if (end < 0) return;
        const len = Number(/content-length: (\d+)/i.exec(pending.subarray(0, end).toString("latin1"))?.[1]);
        if (pending.length < end + 4 + len) return;
        received.push(Buffer.from(pending.subarray(end + 4, end + 4 + len)));
        pending = pending.subarray(end + 4 + len);
        socket.write(json("{}"));
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  const big = Buffer.from(`{"input_ids":[${Array.from({ length: 60_000 }, (_, i) => i).join(",")}]}`);
  const p = pool(port, 1);
  try {
    for (const body of [big, '{"x":1}', big.subarray(0, 70_000)]) {
      const reply = await exchange(p, { method: "POST", path: "/generate", body, timeoutMs: 10_000 });
      assert.equal(reply.status, 200);
    }
  } finally {
    await p.destroy();
    await new Promise<void>((r) => server.close(() => r()));
  }
  assert.deepEqual(
    received.map((b) => b.length),
    [big.length, 7, 70_000],
  );
  assert.ok(received[0]!.equals(big) && received[2]!.equals(big.subarray(0, 70_000)));
  assert.equal(received[1]!.toString(), '{"x":1}');
});

test("readBody reads a 200 body where it arrived (BOM dropped); a throw or another status keeps the bytes", async () => {
  const server = await rawServer((n) => {
    if (n === 2) return ["HTTP/1.1 500 Oops\r\ncontent-length: 5\r\n\r\nbroke"];
    // The body arrives in two packets for n === 3: read from kept bytes, not in place.
    if (n === 3) return ['HTTP/1.1 200 OK\r\ncontent-length: 8\r\n\r\n{"a":', "12}"];
    return [json(n === 0 ? '\uFEFF{"a":1}' : "not json")];
  });
  const seen: string[] = [];
  const readBody = (b: Buffer) => {
    seen.push(b.toString());
    return JSON.parse(b.toString()) as unknown;
  };
  await withPool(server, 1, async (p) => {
    const send = () =>
      exchange(p, { method: "POST", path: "/generate", body: "{}", timeoutMs: 5_000, readBody });
    const read = await send();
    assert.deepEqual(read.read, { a: 1 });
    assert.equal(read.bytes.length, 0, "nothing copied once read");
    const unread = await send();
    assert.equal(unread.read, undefined);
    assert.equal(unread.text, "not json", "a body readBody refused is kept whole");
    const failed = await send();
    assert.equal(failed.status, 500);
    assert.equal(failed.read, undefined);
    assert.equal(failed.text, "broke");
    const split = await send();
    assert.equal(split.read, undefined);
    assert.equal(split.text, '{"a":12}');
  });
  assert.deepEqual(seen, ['{"a":1}', "not json"]);
});

test("requests sharing one caller signal hold one abort listener on it, and its abort cuts them all", async () => {
  const server = await rawServer((n) => (n < 8 ? [json(`{"n":${n}}`)] : null));
  const shared = new AbortController();
  await withPool(server, 8, async (p) => {
    const done = await Promise.all(Array.from({ length: 8 }, () => post(p, "{}", shared.signal)));
    assert.equal(done.length, 8);
    assert.equal(EventEmitter.getEventListeners(shared.signal, "abort").length, 1);
    // Stalled ones (the server answers no more): the one abort cuts every one of them.
    const stalled = Array.from({ length: 5 }, () => post(p, "{}", shared.signal));
    await new Promise((r) => setTimeout(r, 30));
    assert.equal(EventEmitter.getEventListeners(shared.signal, "abort").length, 1);
    shared.abort();
    for (const s of stalled) await assert.rejects(s, { name: "RequestCancelledError" });
    await assert.rejects(post(p, "{}", shared.signal), { name: "RequestCancelledError" });
  });
});

test("an idle connection is closed after the server's keep-alive time, and a later request opens a new one", async () => {
  let open = 0;
  let opened = 0;
  const server: Server = createServer((socket) => {
    open++;
    opened++;
    socket.on("close", () => open--);
    socket.on("data", () => socket.write(json("{}", "keep-alive: timeout=2\r\n")));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const p = pool((server.address() as { port: number }).port, 2);
  try {
    await Promise.all([post(p), post(p)]);
    assert.equal(open, 2);
    // timeout=2 → idle for 1 s (a second less than the server's, so the client closes first).
    await new Promise((r) => setTimeout(r, 600));
    assert.equal(open, 2, "still open before its time");
    await new Promise((r) => setTimeout(r, 700));
    assert.equal(open, 0, "both idle connections closed at their time");
    await post(p);
    assert.equal(opened, 3);
  } finally {
    await p.destroy();
    await new Promise<void>((r) => server.close(() => r()));
  }
});

test("requests made in one tick wait for the check phase, except that eight waiting go out at once", async () => {
  const server = await rawServer((n) => [json(`{"n":${n}}`)]);
  await withPool(server, 16, async (p) => {
    const waiting = () => (p as unknown as { queue: unknown[] }).queue.length;
    const one = post(p);
    assert.equal(waiting(), 1, "a lone request waits for the check phase");
    await one;
    const ten = Array.from({ length: 10 }, () => post(p));
    assert.equal(waiting(), 2, "the first eight went out as the eighth was made");
    const texts = (await Promise.all(ten)).map((r) => r.text);
    assert.equal(new Set(texts).size, 10);
    assert.equal(waiting(), 0);
  });
});
