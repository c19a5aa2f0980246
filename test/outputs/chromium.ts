/**
 * Headless Chromium for the report tests: renders a file and returns its DOM and the console
 * messages Chromium logged (`--enable-logging=stderr` prints each as a `:CONSOLE` line, CSP
 * violations and uncaught errors included). Tests skip when no browser is installed
 * (CI installs the Debian `chromium` package).
 */
import { execFileSync, spawnSync } from "node:child_process";

export function findChromium(): string | null {
  for (const bin of ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"]) {
    try {
      execFileSync("which", [bin], { stdio: "pipe" });
      return bin;
    } catch {
      // try the next name
    }
  }
  return null;
}

export const CHROMIUM_SKIP =
  "chromium not installed (apt-get install -y chromium) — skipping the browser check";

const BASE_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0"];

export interface Rendered {
  dom: string;
  console: string[];
}

export function renderInChromium(bin: string, url: string): Rendered {
  const r = spawnSync(bin, [...BASE_FLAGS, "--dump-dom", url], {
    encoding: "utf8",
    timeout: 60_000,
    maxBuffer: 64 << 20,
  });
  if (r.status !== 0) throw new Error(`chromium exited ${r.status}: ${r.stderr.slice(-2000)}`);
  const consoleLines = r.stderr.split("\n").filter((l) => /:CONSOLE[:(]/.test(l));
  return { dom: r.stdout, console: consoleLines };
}

export function screenshot(bin: string, url: string, out: string): void {
  spawnSync(
    bin,
    [...BASE_FLAGS, "--hide-scrollbars", "--window-size=1300,1800", `--screenshot=${out}`, url],
    {
      encoding: "utf8",
      timeout: 60_000,
    },
  );
}
