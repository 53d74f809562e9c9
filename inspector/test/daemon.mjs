// Test daemons for the browser suite: the binary under test ($AGENTPLEX_BIN, else
// target/debug/agentplex, built by `cargo build -p agentplex`) on a loopback port it
// picks itself (`--port 0`, read from its listening line: a port found free beforehand can
// be taken by another test's daemon first), with a token and a data dir, sharing one compile cache for the builtin adapters.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

export const repo = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const binary = process.env.AGENTPLEX_BIN || join(repo, "target", "debug", "agentplex");
// Kept between runs: the cache is keyed by the components' bytes and the engine's config.
const cacheDir = join(repo, "target", "inspector-test-cache");

/** The port in a daemon's listening line (`agentplex listening on http://HOST:PORT`), if it is one. */
function listeningPort(line) {
  const address = /listening on http:\/\/([^\s"]+)/.exec(line)?.[1];
  const port = Number(address?.slice(address.lastIndexOf(":") + 1));
  return Number.isInteger(port) && port > 0 ? port : undefined;
}

/**
 * Starts a daemon on `dataDir` with `token` (without one: `--no-token`) and the extra
 * variables `env`; resolves once it is healthy.
 */
export async function startDaemon({ dataDir, token, env: extraEnv = {}, timeoutMs = 180_000 }) {
  if (!existsSync(binary)) throw new Error(`no daemon binary at ${binary}: run cargo build -p agentplex`);
  mkdirSync(cacheDir, { recursive: true });
  const env = { ...process.env, ...extraEnv };
  delete env.AGENTPLEX_TOKEN;
  delete env.SANDBOX_AGENT_TOKEN;
  const args = ["server", "--port", "0", "--data-dir", dataDir, "--cache-dir", cacheDir];
  args.push(...(token === undefined ? ["--no-token"] : ["--token", token]));
  const child = spawn(binary, args, { env, stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk) => (stderr += chunk));
  let port;
  createInterface({ input: child.stdout }).on("line", (line) => {
    port ??= listeningPort(line);
  });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`daemon exited with ${child.exitCode}: ${stderr}`);
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`daemon not healthy in time: ${stderr}`);
    }
    const healthy = port !== undefined && (await fetch(`http://127.0.0.1:${port}/v1/health`).then((r) => r.ok, () => false));
    if (healthy) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const base = `http://127.0.0.1:${port}`;
  const api = async (method, path, body) => {
    const headers = token === undefined ? {} : { authorization: `Bearer ${token}` };
    if (body !== undefined) headers["content-type"] = "application/json";
    const response = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    return response.status === 204 ? undefined : response.json();
  };
  /** Stops the daemon (SIGTERM: sessions are kept in the data dir). */
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(timer);
  };
  return { base, port, token, api, stop };
}
