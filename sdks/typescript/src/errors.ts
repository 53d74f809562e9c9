/**
 * `AgentplexError`: every failure the SDK reports, other than an abort (`SandboxAgentError`, its
 * 0.2 name, is a deprecated alias). The daemon's RFC 7807 problem documents map onto it field for
 * field, as the subclass of their code (`SessionNotFoundError`...); failures that are not problem
 * documents (the network, a timeout, a proxy's HTML page, a daemon that would not start) get a
 * code and a subclass of their own.
 *
 * `instanceof` works across copies of the SDK (its ES module and CommonJS builds loaded side by
 * side): the classes match an error by a registered symbol and its `code`, not by prototype.
 */
import type { ErrorType, ProblemDetails } from "./types.js";

/** Prefix of every problem `type`: `urn:sandbox-agent:error:<code>`. */
export const ERROR_TYPE_PREFIX = "urn:sandbox-agent:error:";

/**
 * Codes the SDK itself reports, besides the daemon's:
 * - `network_error`: the request never got an HTTP answer (`status` 0);
 * - `unexpected_response`: an answer that is neither the expected body nor a problem document
 *   (`status` is the HTTP status);
 * - `stream_error`: an event stream kept failing after its reconnect attempts;
 * - `timeout`: a request took longer than its `timeoutMs` (`status` 0), or `start()` gave up
 *   waiting for the daemon's listening line;
 * - `binary_not_found`: `start()` found no `agentplex` (or `sandbox-agent`) binary;
 * - `port_in_use`: the port given to `start()` is taken;
 * - `daemon_exited`: the daemon started by `start()` exited before it was healthy (`exitCode`,
 *   `stderr`).
 */
export type ClientErrorCode =
  | "network_error"
  | "unexpected_response"
  | "stream_error"
  | "timeout"
  | "binary_not_found"
  | "port_in_use"
  | "daemon_exited";

/** Every code a `AgentplexError` can carry (open to codes a newer daemon adds). */
export type ErrorCode = ErrorType | ClientErrorCode | (string & {});

/** What a `AgentplexError` is made from: a problem document, or the SDK's own. */
export interface AgentplexErrorInit {
  type: string;
  status: number;
  title: string;
  detail?: string | null;
  agent?: string | null;
  sessionId?: string | null;
  exitCode?: number | null;
  stderr?: string | null;
  instance?: string | null;
}

/** Titles of the SDK's own errors that have no HTTP status (0). */
const CODE_TITLES: Record<string, string> = {
  network_error: "Network Error",
  timeout: "Timeout",
  stream_error: "Stream Error",
  binary_not_found: "Binary Not Found",
  port_in_use: "Port In Use",
  daemon_exited: "Daemon Exited",
};

/** Status text of the statuses the SDK makes titles for. */
const TITLES: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  413: "Payload Too Large",
  415: "Unsupported Media Type",
  500: "Internal Server Error",
  501: "Not Implemented",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
};

/**
 * Marks SDK errors of every copy of the SDK (ESM and CJS builds). The key is the one of 0.2, so
 * errors of an 0.2 copy match too.
 */
const BRAND = Symbol.for("agentplex.SandboxAgentError");

/** Every failure the SDK reports, other than an abort; the base of the classes below. */
export class AgentplexError extends Error {
  override readonly name: string = "AgentplexError";
  /** On a subclass: the code it stands for. */
  static readonly code: string | undefined = undefined;
  /** `urn:sandbox-agent:error:<code>` (or the problem's own `type` when it has another form). */
  readonly type: string;
  /** The `<code>` part of `type`: `session_not_found`, `token_invalid`, `network_error`... */
  readonly code: ErrorCode;
  /** The HTTP status; 0 when there was no HTTP answer. */
  readonly status: number;
  readonly title: string;
  readonly detail?: string;
  readonly agent?: string;
  readonly sessionId?: string;
  readonly exitCode?: number;
  readonly stderr?: string;
  readonly instance?: string;
  /** The problem document as the daemon sent it, when it sent one. */
  readonly problem?: ProblemDetails;

  constructor(init: AgentplexErrorInit, options?: { cause?: unknown; problem?: ProblemDetails }) {
    super(init.detail ? `${init.title}: ${init.detail}` : init.title, { cause: options?.cause });
    this.type = init.type;
    this.code = init.type.startsWith(ERROR_TYPE_PREFIX)
      ? init.type.slice(ERROR_TYPE_PREFIX.length)
      : init.type;
    this.status = init.status;
    this.title = init.title;
    if (init.detail != null) this.detail = init.detail;
    if (init.agent != null) this.agent = init.agent;
    if (init.sessionId != null) this.sessionId = init.sessionId;
    if (init.exitCode != null) this.exitCode = init.exitCode;
    if (init.stderr != null) this.stderr = init.stderr;
    if (init.instance != null) this.instance = init.instance;
    if (options?.problem) this.problem = options.problem;
    Object.defineProperty(this, BRAND, { value: true });
    this.name = (ERROR_CLASSES[this.code] ?? AgentplexError).name;
  }

  /**
   * `error instanceof SessionNotFoundError` is true for an error of that code made by any copy
   * of the SDK; `instanceof AgentplexError` for every SDK error.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    if (Function.prototype[Symbol.hasInstance].call(this, value)) return true;
    if (typeof value !== "object" || value === null || !(value as Record<symbol, unknown>)[BRAND]) return false;
    // Only the SDK's own classes match by brand; a subclass of yours matches by prototype only.
    if (!Object.prototype.hasOwnProperty.call(this, "code")) return false;
    const code = (this as { code?: string }).code;
    return code === undefined || (value as { code?: unknown }).code === code;
  }

  /** The error of a problem document, as the subclass of its code. */
  static fromProblem(problem: ProblemDetails): AgentplexError {
    const code = problem.type.startsWith(ERROR_TYPE_PREFIX) ? problem.type.slice(ERROR_TYPE_PREFIX.length) : "";
    const Class = ERROR_CLASSES[code] ?? AgentplexError;
    return new Class(problem, { problem });
  }

  /** An error of one of the SDK's own codes (or any documented code, for client-side checks). */
  static create(
    code: ErrorCode,
    status: number,
    detail?: string,
    extra: Omit<AgentplexErrorInit, "type" | "status" | "title"> & { title?: string } = {},
    cause?: unknown,
  ): AgentplexError {
    const { title, ...rest } = extra;
    const Class = ERROR_CLASSES[code] ?? AgentplexError;
    return new Class(
      {
        ...rest,
        type: ERROR_TYPE_PREFIX + code,
        status,
        title: title ?? (status === 0 ? CODE_TITLES[code] : TITLES[status]) ?? `HTTP ${status}`,
        detail: detail ?? null,
      },
      { cause },
    );
  }

  /** Whether `value` is a `AgentplexError`, of the given code when one is given. */
  static is(value: unknown, code?: ErrorCode): value is AgentplexError {
    return value instanceof AgentplexError && (code === undefined || value.code === code);
  }
}

/** Whether `value` is an RFC 7807 problem document as the daemon writes them. */
export function isProblemDetails(value: unknown): value is ProblemDetails {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.type === "string" && typeof v.title === "string" && typeof v.status === "number";
}

/** The error for a non-2xx answer: the problem document when the body is one. */
export function errorFromResponse(status: number, statusText: string, body: string): AgentplexError {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    parsed = undefined;
  }
  if (isProblemDetails(parsed)) {
    return AgentplexError.fromProblem(parsed);
  }
  const snippet = body.trim().slice(0, 500);
  return AgentplexError.create(
    "unexpected_response",
    status,
    `HTTP ${status}${statusText ? ` ${statusText}` : ""} without a problem document${snippet ? `: ${snippet}` : ""}`,
    { title: TITLES[status] ?? (statusText || `HTTP ${status}`) },
  );
}

// One class per code: the daemon's problem types (`ErrorType` in docs/openapi.json; the tests
// check that every code has its class), then the SDK's own.

/** `invalid_request` 400: a malformed body, field, query or id; a reply the adapter refused. */
export class InvalidRequestError extends AgentplexError {
  static override readonly code = "invalid_request";
}

/** `unsupported_agent` 400/404: no loaded adapter has that agent id. */
export class UnsupportedAgentError extends AgentplexError {
  static override readonly code = "unsupported_agent";
}

/** `mode_not_supported` 400: `agentMode` is not one of the agent's modes. */
export class ModeNotSupportedError extends AgentplexError {
  static override readonly code = "mode_not_supported";
}

/** `token_invalid` 401: a missing or wrong token. */
export class TokenInvalidError extends AgentplexError {
  static override readonly code = "token_invalid";
}

/** `permission_denied` 403: the operating system refused a `/v1/fs/*` operation. */
export class PermissionDeniedError extends AgentplexError {
  static override readonly code = "permission_denied";
}

/** `agent_not_installed` 404: the agent's binary is missing and the daemon may not install. */
export class AgentNotInstalledError extends AgentplexError {
  static override readonly code = "agent_not_installed";
}

/** `session_not_found` 404: no session has that id. */
export class SessionNotFoundError extends AgentplexError {
  static override readonly code = "session_not_found";
}

/** `request_not_found` 404: no pending permission request or question has that id. */
export class RequestNotFoundError extends AgentplexError {
  static override readonly code = "request_not_found";
}

/** `not_found` 404: no such route. */
export class NotFoundError extends AgentplexError {
  static override readonly code = "not_found";
}

/** `method_not_allowed` 405: the route exists, not with that method. */
export class MethodNotAllowedError extends AgentplexError {
  static override readonly code = "method_not_allowed";
}

/** `session_already_exists` 409: a session with that id exists (ended ones keep theirs). */
export class SessionAlreadyExistsError extends AgentplexError {
  static override readonly code = "session_already_exists";
}

/** `session_ended` 409: input to a session that has ended. */
export class SessionEndedError extends AgentplexError {
  static override readonly code = "session_ended";
}

/** `not_configured` 409: the daemon runs without what the request needs. */
export class NotConfiguredError extends AgentplexError {
  static override readonly code = "not_configured";
}

/** `path_not_found` 404: a `/v1/fs/*` path does not exist. */
export class PathNotFoundError extends AgentplexError {
  static override readonly code = "path_not_found";
}

/** `path_conflict` 409: a `/v1/fs/*` target is in the way, or a directory is not empty. */
export class PathConflictError extends AgentplexError {
  static override readonly code = "path_conflict";
}

/** `spawn_failed` 400: a process could not be started; `detail` has the system's reason. */
export class SpawnFailedError extends AgentplexError {
  static override readonly code = "spawn_failed";
}

/** `host_not_allowed` 403: the daemon does not answer to the `Host` the request named. */
export class HostNotAllowedError extends AgentplexError {
  static override readonly code = "host_not_allowed";
}

/** `cross_origin_refused` 403: without a token, a web page other than the daemon's own tried to change state. */
export class CrossOriginRefusedError extends AgentplexError {
  static override readonly code = "cross_origin_refused";
}

/** `unsupported_media_type` 415: an archive upload not sent as `application/x-tar` or `application/gzip`. */
export class UnsupportedMediaTypeError extends AgentplexError {
  static override readonly code = "unsupported_media_type";
}

/** `invalid_archive` 400: a session import whose body is not a session archive, or a damaged, truncated or too new one; nothing was imported. */
export class InvalidArchiveError extends AgentplexError {
  static override readonly code = "invalid_archive";
}

/** `session_elsewhere` 409: another daemon sharing the session database drives the session (its lease runs); `detail` names it. */
export class SessionElsewhereError extends AgentplexError {
  static override readonly code = "session_elsewhere";
}

/** `process_not_found` 404: no process has that id. */
export class ProcessNotFoundError extends AgentplexError {
  static override readonly code = "process_not_found";
}

/** `process_conflict` 409: the process is not in a state for the request (no terminal, stdin closed, still running). */
export class ProcessConflictError extends AgentplexError {
  static override readonly code = "process_conflict";
}

/** `process_limit_reached` 409: the daemon holds `--max-processes` processes already. */
export class ProcessLimitReachedError extends AgentplexError {
  static override readonly code = "process_limit_reached";
}

/** `window_not_found` 404: no window of the desktop has that id, or none has the focus. */
export class WindowNotFoundError extends AgentplexError {
  static override readonly code = "window_not_found";
}

/** `recording_not_found` 404: no recording of the desktop has that id. */
export class RecordingNotFoundError extends AgentplexError {
  static override readonly code = "recording_not_found";
}

/** `desktop_not_running` 409: the desktop is not started (`startDesktop`), or its X server died. */
export class DesktopNotRunningError extends AgentplexError {
  static override readonly code = "desktop_not_running";
}

/** `desktop_conflict` 409: a desktop start or stop is under way, or a recording is not in a state for the request. */
export class DesktopConflictError extends AgentplexError {
  static override readonly code = "desktop_conflict";
}

/** `desktop_unavailable` 501: a program the desktop needs is not installed (Xvfb, openbox, ffmpeg, xdg-open); `detail` says what to install. */
export class DesktopUnavailableError extends AgentplexError {
  static override readonly code = "desktop_unavailable";
}

/** `desktop_failed` 503: the desktop's X server or window manager failed; `detail` has the end of its log. */
export class DesktopFailedError extends AgentplexError {
  static override readonly code = "desktop_failed";
}

/** `payload_too_large` 413: a body or file larger than the daemon's limit. */
export class PayloadTooLargeError extends AgentplexError {
  static override readonly code = "payload_too_large";
}

/** `install_failed` 500: installing an agent failed; `detail` names each source tried. */
export class InstallFailedError extends AgentplexError {
  static override readonly code = "install_failed";
}

/** `agent_process_exited` 500: reserved (0.1.x code). */
export class AgentProcessExitedError extends AgentplexError {
  static override readonly code = "agent_process_exited";
}

/** `adapter_failed` 500: the agent's adapter failed; the session has ended. */
export class AdapterFailedError extends AgentplexError {
  static override readonly code = "adapter_failed";
}

/** `storage_full` 507: the disk holding the daemon's data dir is full; nothing was stored. */
export class StorageFullError extends AgentplexError {
  static override readonly code = "storage_full";
}

/** `storage_unavailable` 503: the daemon's session database cannot be written; nothing was stored. */
export class StorageUnavailableError extends AgentplexError {
  static override readonly code = "storage_unavailable";
}

/** `internal` 500: an unexpected failure in the daemon. */
export class InternalError extends AgentplexError {
  static override readonly code = "internal";
}

/** `stream_error` 502 (reserved by the daemon); the SDK's when an event stream kept failing (status 0). */
export class StreamError extends AgentplexError {
  static override readonly code = "stream_error";
}

/** `timeout` a request exceeded its `timeoutMs` (status 0), `start()` gave up waiting, or 504 (reserved by the daemon). */
export class TimeoutError extends AgentplexError {
  static override readonly code = "timeout";
}

/** `network_error` status 0: the request got no HTTP answer (refused, reset, DNS...). */
export class NetworkError extends AgentplexError {
  static override readonly code = "network_error";
}

/** `unexpected_response` an answer that is neither the expected body nor a problem document: not an agentplex daemon, or a proxy's page. */
export class UnexpectedResponseError extends AgentplexError {
  static override readonly code = "unexpected_response";
}

/** `binary_not_found` status 0: `start()` found no `agentplex` (or `sandbox-agent`) binary. */
export class BinaryNotFoundError extends AgentplexError {
  static override readonly code = "binary_not_found";
}

/** `port_in_use` status 0: the `port` given to `start()` is taken. */
export class PortInUseError extends AgentplexError {
  static override readonly code = "port_in_use";
}

/** `daemon_exited` status 0: the daemon `start()` ran exited before it listened (`exitCode`, `stderr`). */
export class DaemonExitedError extends AgentplexError {
  static override readonly code = "daemon_exited";
}

/** @deprecated The 0.2 name of `TimeoutError`. */
export const GatewayTimeoutError = TimeoutError;
/** @deprecated The 0.2 name of `TimeoutError`. */
export type GatewayTimeoutError = TimeoutError;

/** @deprecated The 0.2 name of `AgentplexError`. */
export const SandboxAgentError = AgentplexError;
/** @deprecated The 0.2 name of `AgentplexError`. */
export type SandboxAgentError = AgentplexError;
/** @deprecated The 0.2 name of `AgentplexErrorInit`. */
export type SandboxAgentErrorInit = AgentplexErrorInit;

/** The class of each code, the daemon's and the SDK's. */
export const ERROR_CLASSES: Readonly<Record<string, typeof AgentplexError>> = Object.freeze(
  Object.fromEntries(
    [
      InvalidRequestError,
      UnsupportedAgentError,
      ModeNotSupportedError,
      TokenInvalidError,
      PermissionDeniedError,
      AgentNotInstalledError,
      SessionNotFoundError,
      RequestNotFoundError,
      NotFoundError,
      MethodNotAllowedError,
      SessionAlreadyExistsError,
      SessionEndedError,
      NotConfiguredError,
      PathNotFoundError,
      PathConflictError,
      SpawnFailedError,
      HostNotAllowedError,
      CrossOriginRefusedError,
      UnsupportedMediaTypeError,
      InvalidArchiveError,
      SessionElsewhereError,
      ProcessNotFoundError,
      ProcessConflictError,
      ProcessLimitReachedError,
      WindowNotFoundError,
      RecordingNotFoundError,
      DesktopNotRunningError,
      DesktopConflictError,
      DesktopUnavailableError,
      DesktopFailedError,
      PayloadTooLargeError,
      InstallFailedError,
      AgentProcessExitedError,
      AdapterFailedError,
      StorageFullError,
      StorageUnavailableError,
      InternalError,
      StreamError,
      TimeoutError,
      NetworkError,
      UnexpectedResponseError,
      BinaryNotFoundError,
      PortInUseError,
      DaemonExitedError,
    ].map((c) => [c.code as string, c]),
  ),
);
