/**
 * Installing agents: `POST /v1/agents/{agent}/install` and `POST /v1/registry/{agent}` (adding an
 * agent of the ACP registry, which installs it) as event streams. The options of `installAgent`
 * and `addFromRegistry`, the shapes of their events, and the stream both read.
 */
import { AgentplexError, isProblemDetails } from "./errors.js";
import { callOptions, networkError, type RequestOptions, type Transport } from "./http.js";
import { parseSse } from "./sse.js";

/** Options of `installAgent`. */
export interface InstallAgentOptions extends RequestOptions {
  /** Install again even when installed. */
  reinstall?: boolean;
  /** Version to install; the latest when absent. */
  version?: string;
  /** Called with each progress event of the install, as it runs. */
  onProgress?: (progress: InstallProgress) => void;
}

/** Options of `listRegistry`. */
export interface ListRegistryOptions extends RequestOptions {
  /** Fetch the index anew even when the daemon's cached copy is under an hour old. */
  refresh?: boolean;
}

/** Options of `addFromRegistry`. */
export interface AddFromRegistryOptions extends RequestOptions {
  /**
   * Names of variables of the daemon's environment the agent's processes are given (its API
   * key, its base URL): the registry names none. Kept with the agent; adding it again replaces
   * them.
   */
  env?: string[];
  /** Install again even when the entry's version is installed. */
  reinstall?: boolean;
  /** Called with each progress event of the install, as it runs. */
  onProgress?: (progress: InstallProgress) => void;
}

/** A `progress` event of an install (docs/api.md, `POST /v1/agents/{agent}/install`). */
export interface InstallProgress {
  agent: string;
  /** `resolving` (the latest version), `downloading`, `verifying`, `extracting` or `npm`. */
  stage: "resolving" | "downloading" | "verifying" | "extracting" | "npm" | (string & {});
  /** The URL or package being fetched, when there is one. */
  target?: string;
  bytesDone?: number;
  /** Absent (or null) when the server sent no length. */
  bytesTotal?: number | null;
}

/** The `result` of an install. */
export interface InstallResult {
  agent: string;
  version?: string;
  /** Where the binary is. */
  path?: string;
  /** `true` when nothing was downloaded. */
  alreadyInstalled: boolean;
  /** The URL or `npm:<package>@<version>` installed from. */
  source?: string;
}

/** One event of `installAgentProgress` and `addFromRegistryProgress`. */
export type InstallEvent = { event: "progress"; data: InstallProgress } | { event: "result"; data: InstallResult };

/**
 * `POST path` with `Accept: text/event-stream`: the install's events up to its `result`; an
 * `error` event throws its problem (an `InstallFailedError`). No time limit unless the call
 * gives `timeoutMs`.
 */
export async function* installEvents(
  transport: Transport,
  path: string,
  agent: string,
  body: object,
  options: RequestOptions,
): AsyncGenerator<InstallEvent, void, undefined> {
  const { signal, timeoutMs, maxRetries } = options;
  const response = await transport.stream("POST", path, {
    body: Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined)),
    ...callOptions({ signal, timeoutMs: timeoutMs ?? 0, maxRetries }),
  });
  try {
    for await (const message of parseSse(response.body!)) {
      let data: unknown;
      try {
        data = JSON.parse(message.data);
      } catch (error) {
        throw AgentplexError.create(
          "unexpected_response",
          200,
          `an install event is not JSON: ${message.data.slice(0, 200)}`,
          { agent },
          error,
        );
      }
      if (message.event === "error") {
        throw isProblemDetails(data)
          ? AgentplexError.fromProblem(data)
          : AgentplexError.create("install_failed", 500, message.data.slice(0, 500), { agent });
      }
      if (message.event === "progress") yield { event: "progress", data: data as InstallProgress };
      else if (message.event === "result") {
        yield { event: "result", data: data as InstallResult };
        return;
      }
    }
  } catch (error) {
    throw networkError(error, signal, `POST ${path}`);
  }
}

/** The `result` of an install's events, each `progress` handed to `onProgress` first. */
export async function installOutcome(
  events: AsyncIterable<InstallEvent>,
  agent: string,
  onProgress?: (progress: InstallProgress) => void,
): Promise<InstallResult> {
  for await (const item of events) {
    if (item.event === "progress") onProgress?.(item.data);
    else return item.data;
  }
  throw AgentplexError.create(
    "unexpected_response",
    200,
    `the install stream of agent "${agent}" ended without a result`,
    { agent },
  );
}
