import assert from "node:assert/strict";
import { test } from "node:test";
import {
  bearerCheck,
  guarded,
  HttpError,
  listen,
  Routes,
  readJsonObject,
  sendJson,
} from "../../packages/core/src/http/index.ts";
import { InterceptionServer } from "../../packages/core/src/interception/server.ts";

test("routes: exact and pattern paths, 404 for an unknown path, 405 naming the allowed methods", () => {
  const routes = new Routes<string>().add("GET", "/a", "get-a").add("POST", /^\/t\/([^/]+)$/, "tool");
  assert.equal(routes.find("GET", "/a").handler, "get-a");
  assert.deepEqual(routes.find("POST", "/t/x%20y").params, ["x%20y"]);
  assert.throws(
    () => routes.find("GET", "/b"),
    (e: HttpError) => e.status === 404,
  );
  assert.throws(
    () => routes.find("PUT", "/a"),
    (e: HttpError) => e.status === 405 && /takes GET, not PUT/.test(e.message),
  );
  assert.throws(() => routes.add("GET", "/a", "again"), /already mounted/);
});

test("bearerCheck accepts only the exact token; no token configured means open", () => {
  const check = bearerCheck("s3cret");
  const req = (authorization?: string) => ({ headers: { authorization } }) as never;
  assert.equal(check(req("Bearer s3cret")), true);
  assert.equal(check(req("Bearer s3cre")), false);
  assert.equal(check(req("s3cret")), false);
  assert.equal(check(req()), false);
  assert.equal(bearerCheck(null)(req()), true);
});

test("one server: bounded JSON objects, errors answered through one guard", async () => {
  const server = await listen(
    guarded(
      async (req, res) => sendJson(res, 200, await readJsonObject(req, 64)),
      (err, _req, res) => sendJson(res, err instanceof HttpError ? err.status : 500, { m: String(err) }),
    ),
    { host: "127.0.0.1", port: 0 },
  );
  try {
    const post = (body: string) => fetch(server.url, { method: "POST", body });
    assert.deepEqual(await (await post('{"a":1}')).json(), { a: 1 });
    assert.equal((await post("[1]")).status, 400, "an array is not an object");
    assert.equal((await post("{nope")).status, 400);
    assert.equal((await post(`{"a":"${"x".repeat(100)}"}`)).status, 413);
  } finally {
    await server.close();
  }
});

test("interception routes mount beside the dialects, with their own secret header and error shape", async () => {
  const server = new InterceptionServer();
  server.mount({
    method: "GET",
    path: "/probe",
    secret: (req) => (typeof req.headers["x-k"] === "string" ? req.headers["x-k"] : null),
    errorBody: (message) => ({ error: message }),
    handle: ({ res, session }) => sendJson(res, 200, { turns: session.trace.numTurns }),
  });
  assert.throws(() => server.mount({ method: "POST", path: "/v1/chat/completions", handle() {} }), /already/);
  const reg = await server.register({ trace: { numTurns: 4 } } as never);
  try {
    const origin = reg.baseUrl.replace(/\/v1$/, "");
    assert.deepEqual(await (await fetch(`${origin}/probe`, { headers: { "x-k": reg.secret } })).json(), {
      turns: 4,
    });
    const denied = await fetch(`${origin}/probe`, { headers: { authorization: `Bearer ${reg.secret}` } });
    assert.equal(denied.status, 401);
    assert.deepEqual(await denied.json(), { error: "invalid or unknown rollout secret" });
  } finally {
    reg.dispose();
    await server.close();
  }
});
