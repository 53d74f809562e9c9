/**
 * Test daemons: the binary under test on a loopback port it picks itself (`--port 0`, read from
 * its listening line: a port found free beforehand can be taken by another test's daemon first),
 * with its own data dir. No vitest import, so the global setup can use it too.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";

export interface Daemon {
  baseUrl: string;
  port: number;
  token: string | undefined;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** A port nothing listens on right now (to start a daemon, use `--port 0` instead). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts `binary` (`--no-token` unless `token`; with `HOME` set to `home`, `env` added to the
 * environment, and `args` added to its command line, when given) and resolves once it answers
 * its health check.
 */
export async function spawnDaemon(options: {
  binary: string;
  cacheDir: string;
  token?: string;
  home?: string;
  env?: Record<string, string>;
  args?: string[];
  timeoutMs?: number;
}): Promise<Daemon> {
  const dataDir = mkdtempSync(join(tmpdir(), "agentplex-sdk-data-"));
  const args = ["server", "--port", "0", "--data-dir", dataDir, "--cache-dir", options.cacheDir];
  args.push(...(options.token ? ["--token", options.token] : ["--no-token"]), ...(options.args ?? []));
  const env = { ...process.env, ...options.env };
  // They would conflict with --no-token.
  for (const name of ["AGENTPLEX_TOKEN", "AGENTPLEX_TOKEN_FILE", "SANDBOX_AGENT_TOKEN", "SANDBOX_AGENT_TOKEN_FILE"]) {
    delete env[name];
  }
  if (options.home !== undefined) env.HOME = options.home;
  const child = spawn(options.binary, args, { env, stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  let port: number | undefined;
  createInterface({ input: child.stdout! }).on("line", (line) => {
    port ??= listeningPort(line);
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGKILL");
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  for (;;) {
    if (child.exitCode !== null) throw new Error(`daemon exited with ${child.exitCode}: ${stderr}`);
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`daemon not healthy in time: ${stderr}`);
    }
    const healthy =
      port !== undefined &&
      (await fetch(`http://127.0.0.1:${port}/v1/health`).then(
        (response) => response.ok,
        () => false,
      ));
    if (healthy) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const baseUrl = `http://127.0.0.1:${port}`;
  return { baseUrl, port: port!, token: options.token, process: child, stop };
}

/** The port in a daemon's listening line (`agentplex listening on http://HOST:PORT`), if it is one. */
function listeningPort(line: string): number | undefined {
  const address = /listening on http:\/\/([^\s"]+)/.exec(line)?.[1];
  const port = Number(address?.slice(address.lastIndexOf(":") + 1));
  return Number.isInteger(port) && port > 0 ? port : undefined;
}
