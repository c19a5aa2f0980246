/**
 * Headless Chromium for the report tests: renders a file and returns its DOM and the console
 * messages Chromium logged (`--enable-logging=stderr` prints each as a `:CONSOLE` line, CSP
 * violations and uncaught errors included). Tests skip when no browser is installed
 * (CI installs the Debian `chromium` package).
 */

import { execFileSync, spawn, spawnSync } from "node:child_process";
import { captureOutput } from "../cli/cli-helpers.ts";

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

/** Async on purpose: a blocking spawnSync would also stall servers running in the test process. */
export function renderInChromium(bin: string, url: string): Promise<Rendered> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, [...BASE_FLAGS, "--dump-dom", url], { stdio: ["ignore", "pipe", "pipe"] });
    const output = captureOutput(child);
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      const { stdout, stderr } = output();
      if (code !== 0) return reject(new Error(`chromium exited ${code}: ${stderr.slice(-2000)}`));
      resolve({ dom: stdout, console: stderr.split("\n").filter((l) => /:CONSOLE[:(]/.test(l)) });
    });
  });
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
