/**
 * A managed process's output followed live (`GET /v1/processes/{id}/logs?follow=true`): an async
 * iterator over the SSE stream that reconnects from the last entry it yielded, and the decoding
 * of an entry's base64 `data`.
 */
import { AgentplexError } from "./errors.js";
import { anySignal, networkError, seg, sleep, transportOf, type RequestOptions } from "./http.js";
import {
  backoff,
  DEFAULT_IDLE_TIMEOUT_MS,
  DEFAULT_STREAM_RETRIES,
  DEFAULT_STREAM_RETRY_DELAY_MS,
  retryable,
  watchIdle,
} from "./reconnect.js";
import { parseSse, type SseMessage } from "./sse.js";
import type { ProcessInfo, ProcessLogEntry, ProcessLogsMissed, ProcessLogsQuery } from "./types.js";

/**
 * One event of a followed log: an entry of output, output dropped from the ring buffer before
 * it was sent (`missed`), or the process's exit (last; the iteration ends after it).
 */
export type ProcessLogEvent =
  | { event: "log"; data: ProcessLogEntry }
  | { event: "missed"; data: ProcessLogsMissed }
  | { event: "exit"; data: ProcessInfo };

/**
 * Options of `followProcessLogs`: the logs query (without `tail`: a followed log starts from
 * `offset` or after `since`, else from the oldest byte held), and how the stream reconnects.
 */
export interface FollowProcessLogsOptions extends Omit<ProcessLogsQuery, "tail">, RequestOptions {
  /**
   * Reconnect attempts in a row that may fail (no connection, or a connection closed before
   * it brought any data) before the iterator throws a `stream_error`. Default 10.
   */
  maxRetries?: number;
  /** Delay before the first reconnect after a failure; doubles up to 5 s. Default 250 ms. */
  retryDelayMs?: number;
  /**
   * A connection silent for this long (the daemon sends a keep-alive every 15 s) is treated as
   * dropped and reopened. Default 45 000 ms; 0 disables.
   */
  idleTimeoutMs?: number;
}

/** The bytes of a log entry (its `data` is base64). */
export function decodeProcessLogData(entry: Pick<ProcessLogEntry, "data">): Uint8Array {
  return base64ToBytes(entry.data);
}

/** Bytes from base64 (`atob` exists in browsers, Node 16+ and Bun). */
export function base64ToBytes(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** Base64 of bytes. */
export function bytesToBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

/**
 * Yields the process's output entries held that match the query, then new ones as they are
 * read, then its `exit`. A dropped connection is reopened with `Last-Event-ID` (and `since`)
 * set to the last entry yielded, so no entry is repeated or skipped (output the ring buffer
 * dropped meanwhile comes as a `missed` event). Problem answers (404...) are thrown at once.
 */
export async function* followProcessLogs(
  client: object,
  id: string,
  options: FollowProcessLogsOptions = {},
): AsyncGenerator<ProcessLogEvent, void, undefined> {
  const {
    signal,
    timeoutMs,
    maxRetries = DEFAULT_STREAM_RETRIES,
    retryDelayMs = DEFAULT_STREAM_RETRY_DELAY_MS,
    idleTimeoutMs = DEFAULT_IDLE_TIMEOUT_MS,
    ...query
  } = options;
  const path = `/v1/processes/${seg(id)}/logs`;
  let since = query.since;
  // The daemon reads from `offset` rather than `since` when given both: once an entry was
  // yielded, a reconnect goes on after it alone.
  let offset = query.offset;
  let failures = 0;
  let delay = 0;
  let lastError: unknown;

  for (;;) {
    signal?.throwIfAborted();
    if (failures > maxRetries) {
      throw AgentplexError.create(
        "stream_error",
        lastError instanceof AgentplexError ? lastError.status : 0,
        `the log stream of process "${id}" failed ${failures} times in a row` +
          (lastError instanceof Error ? `; last: ${lastError.message}` : ""),
        {},
        lastError,
      );
    }
    if (delay > 0) await sleep(delay, signal);

    const connection = anySignal([signal]);
    const idle = watchIdle(connection.controller, idleTimeoutMs);
    let alive = false;
    try {
      let response: Response;
      try {
        response = await transportOf(client).stream("GET", path, {
          query: { ...query, since, offset, follow: true },
          headers: since !== undefined ? { "last-event-id": String(since) } : {},
          signal: connection.signal,
          timeoutMs,
          maxRetries: 0, // reconnects are this loop's
        });
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        if (!retryable(error)) throw error;
        lastError = error;
        failures++;
        delay = backoff(retryDelayMs, failures);
        continue;
      }
      const messages = parseSse(response.body!, () => {
        idle.touch();
        alive = true;
        failures = 0;
      });
      try {
        for (;;) {
          let next: IteratorResult<SseMessage>;
          try {
            next = await messages.next();
          } catch (error) {
            if (signal?.aborted) throw signal.reason;
            lastError = networkError(error, undefined, `reading the log stream of process "${id}"`);
            break;
          }
          if (next.done) break;
          const event = parseLogEvent(next.value, id);
          if (!event) continue;
          if (event.event === "log") {
            if (since !== undefined && event.data.sequence <= since) continue;
            since = event.data.sequence;
            offset = undefined;
          }
          yield event;
          if (event.event === "exit") return;
        }
      } finally {
        await messages.return(undefined);
      }
    } finally {
      idle.stop();
      connection.controller.abort();
      connection.dispose();
    }

    // The stream ended or dropped before `exit`: reconnect from the last entry.
    if (alive) {
      delay = 0;
    } else {
      lastError ??= AgentplexError.create("stream_error", 0, "the log stream closed without any data");
      failures++;
      delay = backoff(retryDelayMs, failures);
    }
  }
}

/** The event of one SSE message of a followed log; undefined for an event it does not know. */
function parseLogEvent(message: SseMessage, id: string): ProcessLogEvent | undefined {
  if (message.event !== "log" && message.event !== "missed" && message.event !== "exit") return undefined;
  try {
    return { event: message.event, data: JSON.parse(message.data) } as ProcessLogEvent;
  } catch (error) {
    throw AgentplexError.create(
      "unexpected_response",
      200,
      `a log event of process "${id}" is not JSON: ${message.data.slice(0, 200)}`,
      {},
      error,
    );
  }
}
