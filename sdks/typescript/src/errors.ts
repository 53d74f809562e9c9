/**
 * `SandboxAgentError`: every failure the SDK reports, other than an abort. The daemon's RFC 7807
 * problem documents map onto it field for field; failures that are not problem documents
 * (the network, a proxy's HTML page, a daemon that would not start) get a type of their own.
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
 * - `timeout`: `start()` gave up waiting for the daemon's health check;
 * - `binary_not_found`: `start()` found no `sandbox-agent` binary;
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

/** Every code a `SandboxAgentError` can carry (open to codes a newer daemon adds). */
export type ErrorCode = ErrorType | ClientErrorCode | (string & {});

/** What a `SandboxAgentError` is made from: a problem document, or the SDK's own. */
export interface SandboxAgentErrorInit {
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
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
};

export class SandboxAgentError extends Error {
  override readonly name = "SandboxAgentError";
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

  constructor(init: SandboxAgentErrorInit, options?: { cause?: unknown; problem?: ProblemDetails }) {
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
  }

  /** An error of one of the SDK's own codes (or any documented code, for client-side checks). */
  static create(
    code: ErrorCode,
    status: number,
    detail?: string,
    extra: Omit<SandboxAgentErrorInit, "type" | "status" | "title"> & { title?: string } = {},
    cause?: unknown,
  ): SandboxAgentError {
    const { title, ...rest } = extra;
    return new SandboxAgentError(
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

  /** Whether `value` is a `SandboxAgentError`, of the given code when one is given. */
  static is(value: unknown, code?: ErrorCode): value is SandboxAgentError {
    return value instanceof SandboxAgentError && (code === undefined || value.code === code);
  }
}

/** Whether `value` is an RFC 7807 problem document as the daemon writes them. */
export function isProblemDetails(value: unknown): value is ProblemDetails {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.type === "string" && typeof v.title === "string" && typeof v.status === "number";
}

/** The error for a non-2xx answer: the problem document when the body is one. */
export function errorFromResponse(status: number, statusText: string, body: string): SandboxAgentError {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    parsed = undefined;
  }
  if (isProblemDetails(parsed)) {
    return new SandboxAgentError(parsed, { problem: parsed });
  }
  const snippet = body.trim().slice(0, 500);
  return SandboxAgentError.create(
    "unexpected_response",
    status,
    `HTTP ${status}${statusText ? ` ${statusText}` : ""} without a problem document${snippet ? `: ${snippet}` : ""}`,
    { title: TITLES[status] ?? (statusText || `HTTP ${status}`) },
  );
}
