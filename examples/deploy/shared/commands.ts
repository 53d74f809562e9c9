/**
 * The shell commands every example runs in its sandbox: what the deploy guides tell you to type.
 * They are functions of the release URL and the port so that the tests can run the very same
 * text against a local mirror and a free port.
 */

/** The release the examples install (its folder holds `install.sh` and the archives). */
export const RELEASE_URL = "https://github.com/agentplex/agentplex/releases/download/v0.2.0";

/** The port the daemon listens on in a provider's sandbox. */
export const PORT = 2468;

/** Where the started daemon's stdout (the listening line) and stderr (its log) go. */
export const STDOUT_FILE = "$HOME/sandbox-agent.out";
export const LOG_FILE = "$HOME/sandbox-agent.log";

/** The installed binary: the install script's default place, `~/.local/bin`. */
export const BINARY = "$HOME/.local/bin/sandbox-agent";

/**
 * Installs the binary with the release's install script (needs `curl`, `tar`, `gzip`).
 * `SANDBOX_AGENT_BASE_URL` points the script at the same release (or a mirror of it).
 */
export function installCommand(releaseUrl: string = RELEASE_URL): string {
  return `curl -fsSL ${releaseUrl}/install.sh | SANDBOX_AGENT_BASE_URL=${releaseUrl} sh`;
}

/**
 * Starts the daemon. The token comes from `SANDBOX_AGENT_TOKEN` in the command's environment
 * (so it is not on the command line for `ps` to show). `0.0.0.0` makes the port reachable by the
 * provider's proxy; never start it that way without a token.
 */
export function serverCommand(port: number = PORT, host = "0.0.0.0"): string {
  return `"${BINARY}" server --host ${host} --port ${port} >"${STDOUT_FILE}" 2>"${LOG_FILE}"`;
}

/** The line the daemon prints on stdout once it listens (docs/cli.md, "The listening line"). */
export const LISTENING_LINE = /^sandbox-agent listening on http:\/\/(\S+):(\d+)$/m;

/** `text` as one single-quoted shell word. */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
