/**
 * Moving a session between daemons (`GET /v1/sessions/{id}/export`, `POST
 * /v1/sessions/{id}/import`): the options of `exportSession`, `importSession` and `moveSession`,
 * the import's headers, and the relay that hands one daemon's archive to the other as it comes.
 */
import { AgentplexError } from "./errors.js";
import { networkError, type RequestOptions } from "./http.js";

/** The header an import takes secret variables in, form-encoded `NAME=value` pairs (`A=1&B=2`). */
export const IMPORT_ENV_HEADER = "x-agentplex-env";
/** The header of an export that says why the agent's own session is not in the archive. */
export const NATIVE_LOST_HEADER = "x-agentplex-native-lost";

/** Options of `exportSession`. */
export interface ExportSessionOptions extends RequestOptions {
  /**
   * Called, before the stream is returned, with the reason the agent's own session is not in
   * the archive (header `x-agentplex-native-lost`), when it is not. The session then moves with
   * its transcript, and its next message starts a new session of the agent; the import's
   * `lost` says the same.
   */
  onNativeLost?: (reason: string) => void;
}

/** Options of `importSession`. */
export interface ImportSessionOptions extends RequestOptions {
  /**
   * The session's working directory in the importing daemon's sandbox (absolute, or relative
   * to the daemon's); by default the one it had, when it exists there.
   */
  directory?: string;
  /**
   * Secret variables the export left out (the import's `missingSecrets` names those not
   * given), sent form-encoded in one `x-agentplex-env` header (`A=1&B=2`).
   */
  env?: Record<string, string>;
}

/** Options of `moveSession`: the import's, and the id the session gets there. */
export interface MoveSessionOptions extends ImportSessionOptions {
  /** The id the session gets in the other daemon; by default the same. */
  toId?: string;
}

/**
 * The headers of an import: its content type, and the secret variables given, form-encoded
 * in one `x-agentplex-env` header (`fetch` would join repeated ones). Throws an
 * `InvalidRequestError` (status 0) for a name that is no variable name.
 */
export function importHeaders(env: Record<string, string> | undefined): Record<string, string> {
  const headers: Record<string, string> = { "content-type": "application/gzip" };
  const entries = Object.entries(env ?? {});
  for (const [name] of entries) {
    if (name === "") {
      throw AgentplexError.create("invalid_request", 0, `env: ${JSON.stringify(name)} is not a variable name`);
    }
  }
  if (entries.length > 0) headers[IMPORT_ENV_HEADER] = new URLSearchParams(entries).toString();
  return headers;
}

/** The archive of one daemon on its way to another, and what went wrong reading it. */
export interface Relay {
  /** The archive as a request body: read from the export as the import sends it. */
  body: ReadableStream<Uint8Array>;
  /** The failure reading the export, when reading it failed (a `NetworkError`). */
  readonly failure: unknown;
  /** Stops reading the export (its connection closes when the import ended early). */
  close(): Promise<void>;
}

/** Relays `archive` (an export's body) chunk by chunk, as the import's request pulls it. */
export function relay(archive: ReadableStream<Uint8Array>, what: string, signal: AbortSignal | undefined): Relay {
  const reader = archive.getReader();
  let failure: unknown;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (error) {
        failure = networkError(error, signal, `reading ${what}`);
        controller.error(failure);
        return;
      }
      if (chunk.done) controller.close();
      else controller.enqueue(chunk.value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
  return {
    body,
    get failure() {
      return failure;
    },
    close: () => reader.cancel().catch(() => undefined),
  };
}
