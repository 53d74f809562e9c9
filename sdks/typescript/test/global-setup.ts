/**
 * Once per test run: the daemon binary under test (SANDBOX_AGENT_BIN, or `cargo build -p
 * sandbox-agent` in the repository), and a compile cache for adapter components that every
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
  let binary = process.env.SANDBOX_AGENT_BIN;
  let cacheDir: string;
  if (binary && process.env.SANDBOX_AGENT_TEST_CACHE_DIR) {
    // A compile cache kept between runs (warming a new one takes a while).
    cacheDir = process.env.SANDBOX_AGENT_TEST_CACHE_DIR;
    mkdirSync(cacheDir, { recursive: true });
  } else if (binary) {
    cacheDir = mkdtempSync(join(tmpdir(), "sandbox-agent-sdk-cache-"));
    cleanups.push(() => rmSync(cacheDir, { recursive: true, force: true }));
  } else {
    const repo = resolve(import.meta.dirname, "../../..");
    execFileSync("cargo", ["build", "-p", "agentplex"], { cwd: repo, stdio: "inherit" });
    binary = join(repo, "target", "debug", process.platform === "win32" ? "sandbox-agent.exe" : "sandbox-agent");
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
