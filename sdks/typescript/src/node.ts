/**
 * `sandbox-agent/node`: everything in `sandbox-agent`, plus `start()`, which runs a local
 * `sandbox-agent` daemon as a child process. Node only (it uses `child_process`), which is why
 * it is a separate entry point: browser bundles of `sandbox-agent` never load it.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { accessSync, constants as fsConstants, statSync } from "node:fs";
import { createServer } from "node:net";
import { delimiter, join } from "node:path";
import { SandboxAgent } from "./client.js";
import { SandboxAgentError } from "./errors.js";
import { anySignal, sleep, type RequestOptions } from "./http.js";

export * from "./index.js";

export interface StartOptions extends RequestOptions {
  /** The `sandbox-agent` binary; else `$SANDBOX_AGENT_BIN`; else `sandbox-agent` on `PATH`. */
  binaryPath?: string;
  /** The port to listen on; a free one when absent. */
  port?: number;
  /** The address to listen on (default `127.0.0.1`). */
  host?: string;
  /** The token clients must send; a random one when absent (read it from `client.token`). */
  token?: string;
  /** The daemon's data directory (`--data-dir`); the daemon's default when absent. */
  dataDir?: string;
  /** More arguments for `sandbox-agent server` (`--cors-allow-origin`, `--cache-dir`...). */
  args?: string[];
  /** Environment of the daemon (default: this process's). */
  env?: Record<string, string | undefined>;
  /**
   * Where the daemon's output goes: `inherit` (this process's stdout and stderr), or `pipe`
   * (default: kept in memory, the last 64 KiB of stderr shown in errors).
   */
  log?: "inherit" | "pipe";
  /** How long to wait for the daemon's health check (default 30 000 ms). */
  timeoutMs?: number;
  /** A `fetch` to use instead of the global one. */
  fetch?: typeof fetch;
}

// Early Node 20 releases lack Symbol.asyncDispose (used below); Node's own polyfill uses this
// registered symbol, so `await using` in transpiled code finds the method.
(Symbol as { asyncDispose?: symbol }).asyncDispose ??= Symbol.for("nodejs.asyncDispose");

/** A client of a daemon that `start()` runs; `dispose()` stops the daemon. */
export class LocalSandboxAgent extends SandboxAgent {
  /** The daemon's child process. */
  readonly process: ChildProcess;
  /** The port the daemon listens on. */
  readonly port: number;
  private readonly stderrTail: () => string;
  private disposing: Promise<void> | undefined;

  /** @internal Made by `start()`. */
  constructor(
    init: { baseUrl: string; token: string; fetch?: typeof fetch; child: ChildProcess; port: number },
    stderrTail: () => string,
  ) {
    super({ baseUrl: init.baseUrl, token: init.token, ...(init.fetch ? { fetch: init.fetch } : {}) });
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

/**
 * Runs a local `sandbox-agent server` (binary from `binaryPath`, `$SANDBOX_AGENT_BIN` or
 * `PATH`) on `host:port` (a free port when none is given) with `token` (a random one when
 * none is given), waits until it answers its health check, and returns a client of it.
 * `dispose()` stops it; so does this process exiting.
 */
export async function start(options: StartOptions = {}): Promise<LocalSandboxAgent> {
  const binary = findBinary(options.binaryPath);
  const host = options.host ?? "127.0.0.1";
  const token = options.token ?? randomBytes(24).toString("hex");
  // A daemon already on a given port would answer our health check: refuse at once.
  if (options.port !== undefined && !(await portFree(host, options.port))) {
    throw SandboxAgentError.create("port_in_use", 0, `${host}:${options.port} is already in use`);
  }
  // A free port found here may be taken before the daemon binds it: try again with another.
  for (let attempt = 1; ; attempt++) {
    const port = options.port ?? (await freePort(host));
    try {
      return await launch(binary, host, port, token, options);
    } catch (error) {
      const portTaken =
        SandboxAgentError.is(error, "daemon_exited") && /address (already )?in use|AddrInUse/i.test(error.stderr ?? "");
      if (options.port !== undefined || !portTaken || attempt >= 3) throw error;
    }
  }
}

async function launch(
  binary: string,
  host: string,
  port: number,
  token: string,
  options: StartOptions,
): Promise<LocalSandboxAgent> {
  const args = ["server", "--host", host, "--port", String(port)];
  if (options.dataDir !== undefined) args.push("--data-dir", options.dataDir);
  args.push(...(options.args ?? []));
  const env: Record<string, string | undefined> = { ...(options.env ?? process.env) };
  // The token goes by environment, not argv, so it does not show in `ps`.
  env.SANDBOX_AGENT_TOKEN = token;
  const inherit = options.log === "inherit";
  const child = spawn(binary, args, {
    env,
    stdio: ["ignore", inherit ? "inherit" : "pipe", inherit ? "inherit" : "pipe"],
  });
  track(child);

  let stderr = "";
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (chunk: string) => {
    stderr = (stderr + chunk).slice(-64 * 1024);
  });
  child.stdout?.resume(); // drain, so the daemon never blocks on a full pipe

  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  let spawnError: Error | undefined;
  const exited = new Promise<void>((resolve) => {
    child.once("exit", (code, signal) => {
      exit = { code, signal };
      resolve();
    });
    child.once("error", (error) => {
      spawnError = error;
      resolve();
    });
  });

  const baseUrl = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
  const client = new LocalSandboxAgent(
    { baseUrl, token, child, port, ...(options.fetch ? { fetch: options.fetch } : {}) },
    () => stderr,
  );
  const timeoutMs = options.timeoutMs ?? 30_000;
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      options.signal?.throwIfAborted();
      if (spawnError) {
        throw SandboxAgentError.create(
          "binary_not_found",
          0,
          `could not run ${binary}: ${spawnError.message}`,
          {},
          spawnError,
        );
      }
      if (exit) {
        await sleep(20); // let the last stderr chunks arrive
        throw SandboxAgentError.create(
          "daemon_exited",
          0,
          `${binary} exited ${exit.signal ? `on ${exit.signal}` : `with code ${exit.code}`} before it was healthy` +
            (stderr ? `:\n${stderr.trim().split("\n").slice(-10).join("\n")}` : ""),
          { ...(exit.code !== null ? { exitCode: exit.code } : {}), stderr },
        );
      }
      if (Date.now() > deadline) {
        throw SandboxAgentError.create(
          "timeout",
          504,
          `${binary} did not answer ${baseUrl}/v1/health within ${timeoutMs} ms`,
          { stderr },
        );
      }
      const attempt = anySignal([options.signal]);
      const timer = setTimeout(() => attempt.controller.abort(), 1_000);
      try {
        await client.health({ signal: attempt.signal });
        break;
      } catch {
        // not listening yet
      } finally {
        clearTimeout(timer);
        attempt.dispose();
      }
      await Promise.race([exited, sleep(50, options.signal)]);
    }
  } catch (error) {
    await client.dispose(1_000);
    throw error;
  }
  // The daemon must not keep this process alive: it is stopped at exit.
  child.unref();
  (child.stdout as { unref?: () => void } | null)?.unref?.();
  (child.stderr as { unref?: () => void } | null)?.unref?.();
  return client;
}

/** The binary to run: the option, `$SANDBOX_AGENT_BIN`, or `sandbox-agent` on `PATH`. */
function findBinary(explicit: string | undefined): string {
  const given = explicit ?? process.env.SANDBOX_AGENT_BIN;
  if (given) {
    if (!isExecutable(given)) {
      throw SandboxAgentError.create(
        "binary_not_found",
        0,
        `${given} (${explicit ? "binaryPath" : "SANDBOX_AGENT_BIN"}) is not an executable file`,
      );
    }
    return given;
  }
  const names =
    process.platform === "win32"
      ? (process.env.PATHEXT ?? ".EXE;.CMD;.BAT").split(";").map((ext) => `sandbox-agent${ext.toLowerCase()}`)
      : ["sandbox-agent"];
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (!dir) continue;
    for (const name of names) {
      const candidate = join(dir, name);
      if (isExecutable(candidate)) return candidate;
    }
  }
  throw SandboxAgentError.create(
    "binary_not_found",
    0,
    "no sandbox-agent binary: pass binaryPath, set SANDBOX_AGENT_BIN, or put sandbox-agent on PATH",
  );
}

function isExecutable(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, fsConstants.X_OK);
    return true;
  } catch {
    return false;
  }
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

/** A port that was free on `host` a moment ago. */
function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once("error", reject);
    server.listen(0, host, () => {
      const address = server.address();
      server.close(() => {
        if (address && typeof address === "object") resolve(address.port);
        else reject(new Error("could not pick a free port"));
      });
    });
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
