/**
 * Why the engine child spends more CPU per request from one client than from another: the same
 * first-turn bodies sent 64 in flight by the bench's undici Pool (the HTTP ceiling), by envroll's
 * keep-alive client (transport/h1.ts), by both with SPIN µs of busy client work per request (an
 * engine with spare capacity, as during rollouts), and as reverse-text rollouts. Per variant: the
 * engine's CPU ms per request (user and system), this process's, and the engine's voluntary
 * context switches per request (its wake-ups: a client that writes each request the moment it
 * is made wakes an idle engine once per request; one that writes a loop iteration's requests
 * together in the check phase, as undici does, wakes it once per burst).
 *   node --import tsx bench/engine-gap.ts        Env: SPIN (300), N (requests per run, 2000), ROUNDS (4)
 */
import { readFileSync } from "node:fs";
import { Pool } from "undici";
import { createGeneratePool, exchange } from "../packages/core/src/transport/http.ts";
import { procCpuMs, spawnTs, stop, waitForLine } from "./lib/child.ts";
import { median, note } from "./lib/report.ts";
import { environment, generateBodies, timedEval, trainClient } from "./lib/workloads.ts";

const SPIN = Number(process.env.SPIN ?? 300);
const N = Number(process.env.N ?? 2000);
const ROUNDS = Number(process.env.ROUNDS ?? 4);
const IN_FLIGHT = 64;

function spin(us: number): void {
  const until = performance.now() + us / 1000;
  while (performance.now() < until);
}

/** [user ms, system ms, voluntary context switches] of a process so far, from /proc. */
function usage(pid: number): [number, number, number] {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const switches = /voluntary_ctxt_switches:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return [Number(f[11]) * 10, Number(f[12]) * 10, Number(switches?.[1] ?? Number.NaN)];
}

const engine = spawnTs("bench/engine-child.ts");
try {
  const url = (await waitForLine(engine, /listening on (\S+)/))[1]!;
  const pid = engine.pid!;
  const env = await environment("reverse-text", IN_FLIGHT);
  const bodies = generateBodies(env, url);
  const headers = { "content-type": "application/json" };
  const inFlight = async (send: (body: string) => Promise<void>) => {
    let next = 0;
    const worker = async () => {
      while (next < N) await send(bodies[next++ % bodies.length]!);
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  };
  const viaUndici = (spinUs: number) => async () => {
    const pool = new Pool(url, { connections: IN_FLIGHT, pipelining: 1, keepAliveTimeout: 30_000 });
    await inFlight(async (body) => {
      const res = await pool.request({ path: "/generate", method: "POST", headers, body });
      await res.body.text();
      spin(spinUs);
    });
    await pool.close();
  };
  const viaH1 = (spinUs: number) => async () => {
    const pool = createGeneratePool(url, 256, 10_000);
    await inFlight(async (body) => {
      const r = await exchange(pool, { method: "POST", path: "/generate", body, headers, timeoutMs: 60_000 });
      if (r.status !== 200) throw new Error(`/generate answered ${r.status}`);
      spin(spinUs);
    });
    await pool.destroy();
  };
  const client = trainClient(url);
  const variants: Record<string, () => Promise<unknown>> = {
    undici: viaUndici(0),
    h1: viaH1(0),
    [`undici + ${SPIN} us`]: viaUndici(SPIN),
    [`h1 + ${SPIN} us`]: viaH1(SPIN),
    rollouts: () => timedEval(env, client, N),
  };
  const rows: Record<string, number[][]> = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
  for (const run of Object.values(variants)) await run();
  for (let r = 0; r < ROUNDS; r++)
    for (const [name, run] of Object.entries(variants)) {
      const e0 = usage(pid);
      const t0 = procCpuMs(pid);
      const c0 = process.cpuUsage();
      await run();
      const c = process.cpuUsage(c0);
      const e1 = usage(pid);
      rows[name]!.push([
        (procCpuMs(pid) - t0) / N,
        (e1[0] - e0[0]) / N,
        (e1[1] - e0[1]) / N,
        (c.user + c.system) / 1000 / N,
        (e1[2] - e0[2]) / N,
      ]);
    }
  for (const [name, rs] of Object.entries(rows)) {
    const col = (k: number) => median(rs.map((x) => x[k]!)).toFixed(3);
    note(
      `${name.padEnd(16)} engine ${col(0)} ms/req (user ${col(1)}, sys ${col(2)}), client ${col(3)}, engine wake-ups ${col(4)}/req`,
    );
  }
  await env.close();
  await client.close();
} finally {
  await stop(engine);
}
