/**
 * The shell commands every example runs in its sandbox: what the deploy guides tell you to type.
 * They are functions of the release URL and the port so that the tests can run the very same
 * text against a local mirror and a free port.
 */

/** The port the daemon listens on in a provider's sandbox. */
export const PORT = 2468;

/** Where the started daemon's stdout (the listening line) and stderr (its log) go. */
export const STDOUT_FILE = "$HOME/agentplex.out";
export const LOG_FILE = "$HOME/agentplex.log";

/** The installed binary: the install script's default place, `~/.local/bin`. */
export const BINARY = "$HOME/.local/bin/agentplex";

/**
 * Installs the binary (and its second name `sandbox-agent`) with the install script of the
 * release at `baseUrl`: the folder `scripts/release.sh` writes as `dist/`, published or mirrored
 * where the sandbox can download from it. Needs `curl`, `tar` and `gzip` in the sandbox.
 */
export function installCommand(baseUrl: string): string {
  return `curl -fsSL ${baseUrl}/install.sh | AGENTPLEX_BASE_URL=${baseUrl} sh`;
}

/**
 * Starts the daemon. The token comes from `AGENTPLEX_TOKEN` in the command's environment (so it
 * is not on the command line for `ps` to show). `0.0.0.0` makes the port reachable by the
 * provider's proxy; never start it that way without a token.
 */
export function serverCommand(port: number = PORT, host = "0.0.0.0"): string {
  return `"${BINARY}" server --host ${host} --port ${port} >"${STDOUT_FILE}" 2>"${LOG_FILE}"`;
}

/**
 * The line the daemon prints on stdout once it listens (docs/cli.md, "The listening line"):
 * `agentplex listening on http://HOST:PORT`, or a JSON object with that `message` when its logs
 * are JSON (the default when stderr is not a terminal, as in these commands).
 */
export const LISTENING_LINE = /\bagentplex listening on http:\/\/([^\s"]+):(\d+)/;

/** `text` as one single-quoted shell word. */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
