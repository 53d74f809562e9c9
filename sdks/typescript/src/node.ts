/**
 * `agentplex/node`: everything in `agentplex`, plus `start()`, which runs a local daemon as a
 * child process. Node only (it uses `child_process`), which is why it is a separate entry point:
 * browser bundles of `agentplex` never load it.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createServer } from "node:net";
import { Agentplex } from "./client.js";
import { daemonEnv, DEFAULT_START_TIMEOUT_MS, findBinary, listeningAddress } from "./daemon-binary.js";
import { AgentplexError } from "./errors.js";
import type { ClientOptions, RequestOptions } from "./http.js";

export * from "./index.js";

export interface StartOptions extends RequestOptions {
  /**
   * The daemon's binary; else `$AGENTPLEX_BIN` (or the older `$SANDBOX_AGENT_BIN`); else
   * `agentplex` on `PATH`, else `sandbox-agent` (the name of 0.2 and older binaries).
   */
  binaryPath?: string;
  /** The port to listen on; when absent the daemon binds port 0 and reports the port it got. */
  port?: number;
  /** The address to listen on (default `127.0.0.1`). */
  host?: string;
  /** The token clients must send; a random one when absent (read it from `client.token`). */
  token?: string;
  /** The daemon's data directory (`--data-dir`); the daemon's default when absent. */
  dataDir?: string;
  /** More arguments for `agentplex server` (`--cors-allow-origin`, `--cache-dir`...). */
  args?: string[];
  /** Environment of the daemon (default: this process's). */
  env?: Record<string, string | undefined>;
  /**
   * Where the daemon's output goes: `inherit` (this process's stdout and stderr), or `pipe`
   * (default: kept in memory, the last 64 KiB of stderr shown in errors).
   */
  log?: "inherit" | "pipe";
  /** How long to wait for the daemon's listening line (default 30 000 ms). */
  timeoutMs?: number;
  /** The time limit of each call of the client returned (its `timeoutMs`, default 30 000 ms). */
  requestTimeoutMs?: number;
  /** A `fetch` to use instead of the global one. */
  fetch?: typeof fetch;
}

// Early Node 20 releases lack Symbol.asyncDispose (used below); Node's own polyfill uses this
// registered symbol, so `await using` in transpiled code finds the method.
(Symbol as { asyncDispose?: symbol }).asyncDispose ??= Symbol.for("nodejs.asyncDispose");

/** A client of a daemon that `start()` runs; `dispose()` stops the daemon. */
export class LocalAgentplex extends Agentplex {
  /** The daemon's child process. */
  readonly process: ChildProcess;
  /** The port the daemon listens on (from its listening line). */
  readonly port: number;
  private readonly stderrTail: () => string;
  private disposing: Promise<void> | undefined;

  /** @internal Made by `start()`. */
  constructor(
    init: { client: ClientOptions; child: ChildProcess; port: number },
    stderrTail: () => string,
  ) {
    super(init.client);
    this.process = init.child;
    this.port = init.port;
    this.stderrTail = stderrTail;
  }

  /** The daemon's process id. */
  get pid(): number {
    return this.process.pid!;
  }

  /** The last 64 KiB the daemon wrote on stderr (with `log: "pipe"`). */
  stderr(): string {
    return this.stderrTail();
  }

  /**
   * Stops the daemon: `SIGTERM` (it terminates its sessions and exits), then `SIGKILL` after
   * `graceMs` (default 5000). Resolves once it has exited. Safe to call more than once.
   */
  dispose(graceMs = 5_000): Promise<void> {
    this.disposing ??= stopChild(this.process, graceMs);
    return this.disposing;
  }

  /** `await using client = await start()` stops the daemon at the end of the scope. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.dispose();
  }
}

/** @deprecated The 0.2 name of `LocalAgentplex`. */
export const LocalSandboxAgent = LocalAgentplex;
/** @deprecated The 0.2 name of `LocalAgentplex`. */
export type LocalSandboxAgent = LocalAgentplex;

/**
 * Runs a local `agentplex server` (binary from `binaryPath`, `$AGENTPLEX_BIN`,
 * `$SANDBOX_AGENT_BIN` or `PATH`) on `host` with `--port 0` (or the `port` given) and `token`
 * (a random one when none is given), waits for the line it prints on stdout once it listens,
 * and returns a client of the address in that line: no free port is guessed, so nothing can
 * take it first. `dispose()` stops it; so does this process exiting.
 */
export async function start(options: StartOptions = {}): Promise<LocalAgentplex> {
  const binary = findBinary(options.binaryPath);
  const host = options.host ?? "127.0.0.1";
  const token = options.token ?? randomBytes(24).toString("hex");
  if (options.port !== undefined && options.port !== 0 && !(await portFree(host, options.port))) {
    throw AgentplexError.create("port_in_use", 0, `${host}:${options.port} is already in use`);
  }
  const args = ["server", "--host", host, "--port", String(options.port ?? 0)];
  if (options.dataDir !== undefined) args.push("--data-dir", options.dataDir);
  args.push(...(options.args ?? []));
  const env = daemonEnv(options.env ?? process.env, binary, token);
  const inherit = options.log === "inherit";
  // stdout is always read: the listening line is the only thing the daemon writes there.
  const child = spawn(binary, args, { env, stdio: ["ignore", "pipe", inherit ? "inherit" : "pipe"] });
  track(child);

  let stderr = "";
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (chunk: string) => {
    stderr = (stderr + chunk).slice(-64 * 1024);
  });

  const timeoutMs = options.timeoutMs ?? DEFAULT_START_TIMEOUT_MS;
  let baseUrl: string;
  try {
    baseUrl = await new Promise<string>((resolve, reject) => {
      let out = "";
      const cleanup = () => {
        clearTimeout(timer);
        child.stdout!.off("data", onData);
        child.off("exit", onExit);
        child.off("error", onError);
        options.signal?.removeEventListener("abort", onAbort);
      };
      const onData = (chunk: string) => {
        out += chunk;
        const end = out.indexOf("\n");
        if (end === -1) return;
        const address = listeningAddress(out.slice(0, end));
        cleanup();
        if (address) resolve(address);
        else {
          reject(
            AgentplexError.create(
              "unexpected_response",
              0,
              `${binary} printed ${JSON.stringify(out.slice(0, end))} instead of its listening line: not an agentplex daemon?`,
              { stderr },
            ),
          );
        }
      };
      const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
        cleanup();
        // let the last stderr chunks arrive
        setTimeout(() => {
          reject(
            AgentplexError.create(
              "daemon_exited",
              0,
              `${binary} exited ${signal ? `on ${signal}` : `with code ${code}`} before it listened` +
                (stderr ? `:\n${stderr.trim().split("\n").slice(-10).join("\n")}` : ""),
              { ...(code !== null ? { exitCode: code } : {}), stderr },
            ),
          );
        }, 20);
      };
      const onError = (error: Error) => {
        cleanup();
        reject(AgentplexError.create("binary_not_found", 0, `could not run ${binary}: ${error.message}`, {}, error));
      };
      const onAbort = () => {
        cleanup();
        reject(options.signal!.reason);
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(
          AgentplexError.create("timeout", 0, `${binary} printed no listening line within ${timeoutMs} ms`, {
            stderr,
          }),
        );
      }, timeoutMs);
      child.stdout!.setEncoding("utf8");
      child.stdout!.on("data", onData);
      child.once("exit", onExit);
      child.once("error", onError);
      if (options.signal?.aborted) onAbort();
      else options.signal?.addEventListener("abort", onAbort, { once: true });
    });
  } catch (error) {
    await stopChild(child, 1_000);
    throw error;
  }
  child.stdout!.resume(); // nothing more comes; keep the pipe drained anyway
  const clientOptions: ClientOptions = { baseUrl, token };
  if (options.fetch) clientOptions.fetch = options.fetch;
  if (options.requestTimeoutMs !== undefined) clientOptions.timeoutMs = options.requestTimeoutMs;
  const client = new LocalAgentplex({ client: clientOptions, child, port: Number(new URL(baseUrl).port) }, () => stderr);
  // The daemon must not keep this process alive: it is stopped at exit.
  child.unref();
  (child.stdout as { unref?: () => void } | null)?.unref?.();
  (child.stderr as { unref?: () => void } | null)?.unref?.();
  return client;
}

/** Whether `port` on `host` can be listened on now. */
function portFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once("error", () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

async function stopChild(child: ChildProcess, graceMs: number): Promise<void> {
  // Exited already, or never started (a spawn error: no pid, and maybe never an "exit").
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return untrack(child);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
  try {
    await exited;
  } finally {
    clearTimeout(timer);
    untrack(child);
  }
}

// Daemons still running when this process exits are stopped with it.
const running = new Set<ChildProcess>();
const SIGNALS: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];

function killAll(): void {
  for (const child of running) {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
  }
  running.clear();
}

function onSignal(signal: NodeJS.Signals): void {
  killAll();
  removeHooks();
  // When nobody else handles the signal, die of it as Node would have without our handler.
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
}

function addHooks(): void {
  process.on("exit", killAll);
  for (const signal of SIGNALS) process.on(signal, onSignal);
}

function removeHooks(): void {
  process.off("exit", killAll);
  for (const signal of SIGNALS) process.off(signal, onSignal);
}

function track(child: ChildProcess): void {
  if (running.size === 0) addHooks();
  running.add(child);
  child.once("exit", () => untrack(child));
}

function untrack(child: ChildProcess): void {
  if (running.delete(child) && running.size === 0) removeHooks();
}
