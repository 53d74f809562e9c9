/**
 * What `start()` needs to know about the daemon's binary: where it is, the environment it
 * reads its token from, and the line it prints once it listens. Both names are understood:
 * `agentplex`, and `sandbox-agent` (0.2 and older binaries, and a second name of newer ones).
 * Internal: `agentplex/node` exports only `start()` and `LocalAgentplex`.
 */
import { accessSync, constants as fsConstants, statSync } from "node:fs";
import { basename, delimiter, join } from "node:path";
import { AgentplexError } from "./errors.js";

/** How long `start()` waits for the listening line by default. */
export const DEFAULT_START_TIMEOUT_MS = 30_000;

/**
 * The daemon's listening line (docs/cli.md, "The listening line"): `agentplex listening on
 * http://HOST:PORT`, `sandbox-agent listening on ...` from 0.2 and older binaries. Found
 * anywhere in the line, so the line of `--log-format json` (a JSON object whose message it is)
 * counts too.
 */
const LISTENING = /\b(?:agentplex|sandbox-agent) listening on (http:\/\/[^\s"]+)/;

/** The address in the daemon's listening line, or undefined for another line. */
export function listeningAddress(line: string): string | undefined {
  return LISTENING.exec(line)?.[1];
}

/** The variables naming the binary, newest first. */
const BINARY_VARIABLES = ["AGENTPLEX_BIN", "SANDBOX_AGENT_BIN"];
/** The binary's names on `PATH`, newest first (`sandbox-agent`: 0.2 and older). */
const BINARY_NAMES = ["agentplex", "sandbox-agent"];

/**
 * The binary to run: the option, `$AGENTPLEX_BIN`, `$SANDBOX_AGENT_BIN`, else `agentplex` on
 * `PATH`, else `sandbox-agent` on `PATH`.
 */
export function findBinary(explicit?: string): string {
  const variable = BINARY_VARIABLES.find((name) => process.env[name]);
  const given = explicit ?? (variable ? process.env[variable] : undefined);
  if (given) {
    if (!isExecutable(given)) {
      throw AgentplexError.create(
        "binary_not_found",
        0,
        `${given} (${explicit ? "binaryPath" : variable}) is not an executable file`,
      );
    }
    return given;
  }
  const extensions =
    process.platform === "win32" ? (process.env.PATHEXT ?? ".EXE;.CMD;.BAT").split(";").map((e) => e.toLowerCase()) : [""];
  const dirs = (process.env.PATH ?? "").split(delimiter).filter(Boolean);
  for (const name of BINARY_NAMES) {
    for (const dir of dirs) {
      for (const extension of extensions) {
        const candidate = join(dir, name + extension);
        if (isExecutable(candidate)) return candidate;
      }
    }
  }
  throw AgentplexError.create(
    "binary_not_found",
    0,
    "no agentplex binary: pass binaryPath, set AGENTPLEX_BIN, or put agentplex on PATH",
  );
}

/** The token variables of both names (`--token`'s and `--token-file`'s). */
const TOKEN_VARIABLE = /^(AGENTPLEX|SANDBOX_AGENT)_TOKEN(_FILE)?$/;

/**
 * The daemon's environment: `base` with the token in `AGENTPLEX_TOKEN` (by environment, not
 * argv, so it does not show in `ps`), and in `SANDBOX_AGENT_TOKEN` too when the binary is named
 * `sandbox-agent` (0.2 and older binaries read only that one). Token variables of `base` are
 * left out: the daemon would refuse a token given twice.
 */
export function daemonEnv(
  base: Record<string, string | undefined>,
  binary: string,
  token: string,
): Record<string, string | undefined> {
  const env = Object.fromEntries(Object.entries(base).filter(([name]) => !TOKEN_VARIABLE.test(name)));
  env.AGENTPLEX_TOKEN = token;
  if (basename(binary).toLowerCase().startsWith("sandbox-agent")) env.SANDBOX_AGENT_TOKEN = token;
  return env;
}

/** Whether `path` is a file this process may execute. */
function isExecutable(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, fsConstants.X_OK);
    return true;
  } catch {
    return false;
  }
}

