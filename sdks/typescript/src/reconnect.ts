/**
 * What the SDK's reconnecting streams share (a session's events, a process's logs): the idle
 * watchdog, the backoff between attempts, and which failures are worth another attempt.
 */
import { AgentplexError } from "./errors.js";

/** Three keep-alive periods of the daemon (15 s each). */
export const DEFAULT_IDLE_TIMEOUT_MS = 45_000;
/** Reconnect attempts in a row that may fail before a stream throws `stream_error`. */
export const DEFAULT_STREAM_RETRIES = 10;
/** The delay before the first reconnect after a failure (it doubles, up to 5 s). */
export const DEFAULT_STREAM_RETRY_DELAY_MS = 250;

/**
 * Aborts `controller` when `touch` has not been called for `ms` (a silent, probably half-open
 * connection). `ms` = 0 disables it.
 */
export function watchIdle(controller: AbortController, ms: number): { touch: () => void; stop: () => void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stop = () => clearTimeout(timer);
  const touch = () => {
    stop();
    if (ms > 0) {
      timer = setTimeout(
        () => controller.abort(AgentplexError.create("network_error", 0, `no data from the daemon for ${ms} ms`)),
        ms,
      );
    }
  };
  touch();
  return { touch, stop };
}

/** The delay before reconnect attempt `failures` (1, 2...): doubling from `base`, at most 5 s. */
export function backoff(base: number, failures: number): number {
  return Math.min(base * 2 ** (failures - 1), 5_000);
}

/** Errors worth a reconnect: no answer, a server error, or a non-SSE answer from a proxy. */
export function retryable(error: unknown): boolean {
  if (!(error instanceof AgentplexError)) return true;
  return (
    error.status === 0 ||
    error.status >= 500 ||
    error.status === 408 ||
    error.status === 429 ||
    error.code === "unexpected_response"
  );
}
