/**
 * `npx envroll …` and `npm run …` start the CLI under `sh -c`. A SIGTERM sent to npx (a `kill`,
 * a `timeout`, a CI cancel) is passed to that shell, which dies without passing it on, and the
 * CLI would keep running as an orphan. So the CLI watches its parent: once the parent is gone it
 * stops exactly as if it had been sent SIGTERM (an eval keeps its finished rollouts and exits 143).
 */
export function stopWhenOrphaned(intervalMs = 250): void {
  const parent = process.ppid;
  if (parent <= 1) return;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    process.kill(process.pid, "SIGTERM");
  }, intervalMs);
  timer.unref();
}
