/**
 * Installs and starts the daemon in any `Sandbox` and says where it answers. No Node module is
 * used, so a Cloudflare Worker runs it too.
 */
import { installCommand, LISTENING_LINE, LOG_FILE, PORT, serverCommand, STDOUT_FILE } from "./commands.js";
import type { Endpoint, Sandbox } from "./sandbox.js";

/** How to start; every field has the value a provider example uses. */
export interface StartOptions {
  /**
   * The base URL of the release to install with its install script (a published or mirrored
   * `dist/`); `false` when the image has the binary. One of the two is needed.
   */
  install?: string | false;
  /** The port to listen on in the sandbox. */
  port?: number;
  /** The address to listen on in the sandbox. */
  host?: string;
  /** The shell command that starts the daemon; `serverCommand(port, host)` by default. */
  command?: string;
  /** The daemon's token; a random one by default. */
  token?: string;
  /** More environment for the daemon: the API keys of the agents it runs. */
  env?: Record<string, string>;
  /** How long to wait for the listening line, in ms. */
  timeoutMs?: number;
}

/** A started daemon: where it answers and its token. */
export interface Started extends Endpoint {
  token: string;
}

/** Installs (unless the image has it), starts the daemon, waits for its listening line, exposes its port. */
export async function startDaemon(sandbox: Sandbox, options: StartOptions = {}): Promise<Started> {
  const { install, port = PORT, host, env = {}, timeoutMs = 60_000 } = options;
  if (install === undefined) throw new Error("startDaemon: give `install` (a release's base URL) or `install: false`");
  const token = options.token ?? randomToken();
  if (install !== false) await sandbox.run(installCommand(install));
  await sandbox.spawn(options.command ?? serverCommand(port, host), { ...env, AGENTPLEX_TOKEN: token });
  const listening = await waitForListeningLine(sandbox, Date.now() + timeoutMs);
  return { ...(await sandbox.expose(listening)), token };
}

/** 24 random bytes as hex. */
function randomToken(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(24)), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** Reads the daemon's stdout until the listening line is there; returns the port it names. */
async function waitForListeningLine(sandbox: Sandbox, deadline: number): Promise<number> {
  for (;;) {
    const stdout = await sandbox.run(`cat "${STDOUT_FILE}" 2>/dev/null || true`);
    const match = LISTENING_LINE.exec(stdout);
    if (match) return Number(match[2]);
    if (Date.now() > deadline) {
      const log = await sandbox.run(`tail -n 20 "${LOG_FILE}" 2>/dev/null || true`);
      throw new Error(`the daemon did not report listening in time; its log ends with:\n${log}`);
    }
    await sleep(250);
  }
}

/** Resolves after `ms`. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
