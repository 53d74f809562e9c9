/**
 * The one place requests are made: URL building, the token header, abort signals, and turning
 * every failure into a `AgentplexError` (or the caller's abort reason).
 */
import { AgentplexError, errorFromResponse } from "./errors.js";

/** How to reach a daemon. */
export interface ClientOptions {
  /** The daemon's address, e.g. `http://127.0.0.1:2468` (a path prefix is kept). */
  baseUrl: string;
  /** The daemon's token, sent as `Authorization: Bearer <token>`. */
  token?: string;
  /** A `fetch` to use instead of the global one. */
  fetch?: typeof fetch;
  /** Headers added to every request. */
  headers?: Record<string, string>;
  /**
   * Default time limit of one call, retries included, in ms (default 30 000; 0: none). For a
   * call that returns a stream (`events()`, `readFsFileStream`...) it covers the wait for the
   * answer's headers, not the stream. Past it the call rejects with a `TimeoutError`.
   */
  timeoutMs?: number;
  /**
   * How many times an idempotent request (GET, and `PUT /v1/fs/file` with a body that is not a
   * stream) is sent again after a network error or a 502, 503 or 504 (default 2; 0: never).
   */
  maxRetries?: number;
  /** Delay before the first retry, doubling (with jitter) up to 5 s (default 200 ms). */
  retryDelayMs?: number;
}

/** Every call takes these. */
export interface RequestOptions {
  /** Aborts the call; it then rejects with the signal's `reason`. */
  signal?: AbortSignal;
  /** This call's time limit in ms, instead of the client's `timeoutMs` (0: none). */
  timeoutMs?: number;
  /** This call's retries of an idempotent request, instead of the client's `maxRetries`. */
  maxRetries?: number;
}

/** The default `timeoutMs`. */
export const DEFAULT_TIMEOUT_MS = 30_000;
/** The default `maxRetries`. */
export const DEFAULT_MAX_RETRIES = 2;
/** The default `retryDelayMs`. */
export const DEFAULT_RETRY_DELAY_MS = 200;
/** The statuses after which an idempotent request is sent again (besides no answer at all). */
export const RETRY_STATUSES: readonly number[] = [502, 503, 504];

type QueryValue = string | number | boolean | null | undefined;

/**
 * A request body sent as is (not as JSON): bytes, a `Blob`, a string (as UTF-8), or a stream
 * (sent chunked as it is read, never held whole in memory).
 */
export type RawBody = Uint8Array | ArrayBuffer | ArrayBufferView | Blob | string | ReadableStream<Uint8Array>;

/** What one request carries besides its method and path. */
interface SendOptions {
  query?: Record<string, QueryValue>;
  /** A JSON body. */
  body?: unknown;
  /** A body sent as is, with the `content-type` given in `headers`; instead of `body`. */
  raw?: RawBody;
  headers?: Record<string, string>;
  signal?: AbortSignal | undefined;
  timeoutMs?: number | undefined;
  maxRetries?: number | undefined;
  /** Whether the request may be sent again (default: GET and HEAD only). */
  idempotent?: boolean;
}

/** The `RequestOptions` of a call, as `SendOptions`. */
export function callOptions(options: RequestOptions = {}): Pick<SendOptions, "signal" | "timeoutMs" | "maxRetries"> {
  return { signal: options.signal, timeoutMs: options.timeoutMs, maxRetries: options.maxRetries };
}

/**
 * The `Transport` of each client. Kept here, not on the client, so nothing outside the SDK's
 * modules can reach it (the package exports neither this module nor the map).
 */
export const transports = new WeakMap<object, Transport>();

/** The `Transport` of a client made by `new Agentplex(...)`. */
export function transportOf(client: object): Transport {
  const transport = transports.get(client);
  if (!transport) throw new TypeError("not an Agentplex client");
  return transport;
}

/** A JSON body without its `undefined` fields. */
export function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/** Percent-encodes one path segment (session, agent, request ids). */
export function seg(value: string): string {
  return encodeURIComponent(value);
}

export class Transport {
  readonly baseUrl: string;
  readonly token: string | undefined;
  private readonly fetchImpl: typeof fetch;
  private readonly headers: Record<string, string>;
  /** The client's `timeoutMs`: each call's time limit unless the call gives its own. */
  readonly timeoutMs: number;
  private readonly maxRetries: number;
  private readonly retryDelayMs: number;

  constructor(options: ClientOptions) {
    if (!options.baseUrl) throw new TypeError("baseUrl is required");
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.token = options.token;
    if (!options.fetch && typeof globalThis.fetch !== "function") {
      throw new TypeError("no fetch implementation: pass `fetch` in the options");
    }
    // Called as a plain function: browsers require the global fetch's `this` to be the window.
    this.fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.headers = { ...options.headers };
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
    this.retryDelayMs = options.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS;
  }

  /**
   * Sends a request and hands the 2xx response to `read`, within the call's time limit and
   * with retries of idempotent requests. `keepOpen`: the caller reads the body later (a
   * stream), so the time limit stops once `read` returns but the caller's signal stays linked.
   */
  private async call<T>(
    method: string,
    path: string,
    init: SendOptions,
    read: (response: Response, signal: AbortSignal) => Promise<T>,
    keepOpen = false,
  ): Promise<T> {
    init.signal?.throwIfAborted();
    const timeoutMs = init.timeoutMs ?? this.timeoutMs;
    const what = `${method} ${path}`;
    const link = anySignal([init.signal]);
    const timer =
      timeoutMs > 0
        ? setTimeout(
            () => link.controller.abort(AgentplexError.create("timeout", 0, `${what} took longer than ${timeoutMs} ms`)),
            timeoutMs,
          )
        : undefined;
    const replayable = init.raw === undefined || !isReadableStream(init.raw);
    const retries = (init.idempotent ?? (method === "GET" || method === "HEAD")) && replayable
      ? (init.maxRetries ?? this.maxRetries)
      : 0;
    try {
      for (let attempt = 0; ; attempt++) {
        try {
          const response = await this.send(method, path, { ...init, signal: link.signal });
          return await read(response, link.signal);
        } catch (error) {
          const failure = link.signal.aborted && !init.signal?.aborted ? link.signal.reason : error;
          if (attempt >= retries || !retryableStatus(failure)) throw failure;
          const delay = Math.min(this.retryDelayMs * 2 ** attempt, 5_000) * (0.75 + Math.random() / 2);
          await sleep(delay, link.signal).catch((e: unknown) => {
            throw init.signal?.aborted ? init.signal.reason : e;
          });
        }
      }
    } finally {
      clearTimeout(timer);
      if (!keepOpen) link.dispose();
    }
  }

  url(path: string, query?: Record<string, QueryValue>): string {
    let url = this.baseUrl + path;
    if (query) {
      const params = new URLSearchParams();
      for (const [key, value] of Object.entries(query)) {
        if (value !== undefined && value !== null) params.set(key, String(value));
      }
      const text = params.toString();
      if (text) url += `?${text}`;
    }
    return url;
  }

  /** Sends a request once and returns the response when its status is 2xx; throws otherwise. */
  private async send(method: string, path: string, init: SendOptions = {}): Promise<Response> {
    const headers: Record<string, string> = { accept: "application/json", ...this.headers, ...init.headers };
    if (this.token !== undefined) headers.authorization = `Bearer ${this.token}`;
    // `duplex: "half"` is how fetch (Node's, and browsers that stream uploads) takes a stream body.
    const request: RequestInit & { duplex?: "half" } = { method, headers, signal: init.signal };
    if (init.raw !== undefined) {
      request.body = init.raw as BodyInit;
      if (isReadableStream(init.raw)) request.duplex = "half";
    } else if (init.body !== undefined) {
      headers["content-type"] = "application/json";
      request.body = JSON.stringify(init.body);
    }
    init.signal?.throwIfAborted();
    let response: Response;
    try {
      response = await this.fetchImpl(this.url(path, init.query), request);
    } catch (error) {
      throw networkError(error, init.signal, `${method} ${path}`);
    }
    if (!response.ok) {
      let text = "";
      try {
        text = await response.text();
      } catch (error) {
        throw networkError(error, init.signal, `${method} ${path}`);
      }
      throw errorFromResponse(response.status, response.statusText, text);
    }
    return response;
  }

  /** A request whose 2xx answer is a JSON body. */
  async json<T>(method: string, path: string, init: SendOptions = {}): Promise<T> {
    return this.call(method, path, init, async (response, signal) => {
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      throw networkError(error, signal, `${method} ${path}`);
    }
    try {
      return JSON.parse(text) as T;
    } catch (error) {
      throw AgentplexError.create(
        "unexpected_response",
        response.status,
        `${method} ${path} answered ${response.status} with a body that is not JSON: ${text.slice(0, 200)}`,
        {},
        error,
      );
    }
    });
  }

  /** A request whose 2xx answer is raw bytes, read whole. */
  async bytes(method: string, path: string, init: SendOptions = {}): Promise<Uint8Array> {
    const headers = { accept: "application/octet-stream", ...init.headers };
    return this.call(method, path, { ...init, headers }, async (response, signal) => {
      try {
        return new Uint8Array(await response.arrayBuffer());
      } catch (error) {
        throw networkError(error, signal, `${method} ${path}`);
      }
    });
  }

  /** A request whose 2xx answer is raw bytes: the body as a stream, unread. */
  async byteStream(method: string, path: string, init: SendOptions = {}): Promise<ReadableStream<Uint8Array>> {
    return bodyOf(await this.byteResponse(method, path, init));
  }

  /** A request whose 2xx answer is raw bytes: the response, its headers read, its body unread. */
  async byteResponse(method: string, path: string, init: SendOptions = {}): Promise<Response> {
    const headers = { accept: "application/octet-stream", ...init.headers };
    return this.call(method, path, { ...init, headers }, async (response) => response, true);
  }

  /** A request whose 2xx answer has no body we need (204). */
  async none(method: string, path: string, init: SendOptions = {}): Promise<void> {
    return this.call(method, path, init, async (response) => {
      // Drain the body so the connection can be reused.
      await response.arrayBuffer().catch(() => undefined);
    });
  }

  /** A request answered with `text/event-stream`: the response, body unread. */
  async stream(method: string, path: string, init: SendOptions = {}): Promise<Response> {
    const headers = { accept: "text/event-stream", ...init.headers };
    return this.call(method, path, { ...init, headers }, async (response) => {
    const type = response.headers.get("content-type") ?? "";
    if (!type.includes("text/event-stream") || !response.body) {
      const text = await response.text().catch(() => "");
      throw AgentplexError.create(
        "unexpected_response",
        response.status,
        `${method} ${path} answered ${response.status} (${type || "no content type"}) instead of an event stream${text ? `: ${text.slice(0, 200)}` : ""}`,
      );
    }
    return response;
    }, true);
  }
}

/** The body of a response as a stream; an answer without a body is an empty one. */
export function bodyOf(response: Response): ReadableStream<Uint8Array> {
  return response.body ?? new ReadableStream<Uint8Array>({ start: (controller) => controller.close() });
}

/** Failures worth sending an idempotent request again: no answer, or a 502, 503 or 504. */
function retryableStatus(error: unknown): boolean {
  if (!(error instanceof AgentplexError)) return false;
  if (error.code === "timeout" && error.status === 0) return false;
  return error.status === 0 ? error.code === "network_error" : RETRY_STATUSES.includes(error.status);
}

/** By shape, so a stream of another realm or polyfill counts too. */
function isReadableStream(value: unknown): value is ReadableStream<Uint8Array> {
  return typeof value === "object" && value !== null && typeof (value as ReadableStream).getReader === "function";
}

/** The caller's abort reason when its signal fired, else a `network_error`. */
export function networkError(error: unknown, signal: AbortSignal | undefined, what: string): unknown {
  if (signal?.aborted) return signal.reason;
  if (error instanceof AgentplexError) return error;
  const message = error instanceof Error ? error.message : String(error);
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : "";
  return AgentplexError.create("network_error", 0, `${what} failed: ${message}${cause}`, {}, error);
}

/**
 * A signal that fires when any of `signals` fires (`AbortSignal.any` is missing from early
 * Node 20 releases). `dispose` detaches the listeners.
 */
export function anySignal(signals: Array<AbortSignal | undefined>): {
  signal: AbortSignal;
  controller: AbortController;
  dispose: () => void;
} {
  const controller = new AbortController();
  const cleanups: Array<() => void> = [];
  for (const s of signals) {
    if (!s) continue;
    if (s.aborted) {
      controller.abort(s.reason);
      break;
    }
    const onAbort = () => controller.abort(s.reason);
    s.addEventListener("abort", onAbort, { once: true });
    cleanups.push(() => s.removeEventListener("abort", onAbort));
  }
  return {
    signal: controller.signal,
    controller,
    dispose: () => cleanups.forEach((c) => c()),
  };
}

/** Waits `ms`, or rejects with the signal's reason when it fires first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
