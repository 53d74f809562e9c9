/**
 * Once per test run: the daemon binary under test (AGENTPLEX_BIN or SANDBOX_AGENT_BIN, else
 * `cargo build -p agentplex` in the repository: its `agentplex` binary, or the `sandbox-agent`
 * of a build from before the rename), and a compile cache for adapter components that every
 * test daemon shares. The cache is warmed here by one daemon, so the test daemons start in
 * milliseconds instead of each compiling the builtin adapters (seconds in a debug build).
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { TestProject } from "vitest/node";
import { spawnDaemon } from "./daemon.js";

declare module "vitest" {
  export interface ProvidedContext {
    binary: string;
    cacheDir: string;
  }
}

export default async function setup(project: TestProject) {
  const cleanups: Array<() => void> = [];
  let binary = process.env.AGENTPLEX_BIN || process.env.SANDBOX_AGENT_BIN;
  const keptCache = process.env.AGENTPLEX_TEST_CACHE_DIR || process.env.SANDBOX_AGENT_TEST_CACHE_DIR;
  let cacheDir: string;
  if (binary && keptCache) {
    // A compile cache kept between runs (warming a new one takes a while).
    cacheDir = keptCache;
    mkdirSync(cacheDir, { recursive: true });
  } else if (binary) {
    cacheDir = mkdtempSync(join(tmpdir(), "agentplex-sdk-cache-"));
    cleanups.push(() => rmSync(cacheDir, { recursive: true, force: true }));
  } else {
    const repo = resolve(import.meta.dirname, "../../..");
    execFileSync("cargo", ["build", "-p", "agentplex"], { cwd: repo, stdio: "inherit" });
    const built = (name: string) => join(repo, "target", "debug", process.platform === "win32" ? `${name}.exe` : name);
    binary = existsSync(built("agentplex")) ? built("agentplex") : built("sandbox-agent");
    // Kept between runs (the cache is keyed by the components' bytes and the engine config).
    cacheDir = join(repo, "target", "sdk-typescript-test-cache");
    mkdirSync(cacheDir, { recursive: true });
  }
  if (!existsSync(binary)) throw new Error(`no daemon binary at ${binary}`);
  // The first start compiles the builtin adapters into the cache (slow in a debug build).
  const warm = await spawnDaemon({ binary, cacheDir, timeoutMs: 120_000 });
  await warm.stop();
  project.provide("binary", binary);
  project.provide("cacheDir", cacheDir);
  return () => cleanups.forEach((c) => c());
}
