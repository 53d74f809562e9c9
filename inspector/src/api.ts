/**
 * The connection to the daemon (base URL and token, kept in sessionStorage for the tab) and
 * every HTTP request the inspector makes, each recorded in the HTTP log.
 */
import type { ProblemDetails } from "./types.js";

const BASE_KEY = "agentplex-inspector.base";
const TOKEN_KEY = "agentplex-inspector.token";

/** One request of the HTTP log. */
export interface LogEntry {
  id: number;
  method: string;
  url: string;
  /** Request headers other than the token's. */
  headers: Record<string, string>;
  body?: string;
  /** Whether the request carried the token. */
  authorized: boolean;
  startedAt: number;
  status?: number;
  /** Milliseconds to the answer's headers. */
  ms?: number;
  /** For streams: milliseconds until the stream closed. */
  streamMs?: number;
  streaming?: boolean;
  error?: string;
}

/** A non-2xx answer, with its problem document when it had one. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: ProblemDetails | undefined,
  ) {
    super(problem?.detail ?? problem?.title ?? `HTTP ${status}`);
  }
}

type Listener = () => void;

/** The connection and the log. */
class Connection {
  base = sessionStorage.getItem(BASE_KEY) ?? location.origin;
  token = sessionStorage.getItem(TOKEN_KEY) ?? "";
  connected = false;
  readonly log: LogEntry[] = [];
  private nextId = 1;
  private logListeners = new Set<Listener>();
  private unauthorizedListeners = new Set<Listener>();

  /** Keeps the base URL and token for this tab. */
  configure(base: string, token: string): void {
    this.base = base.replace(/\/+$/, "") || location.origin;
    this.token = token.trim();
    sessionStorage.setItem(BASE_KEY, this.base);
    sessionStorage.setItem(TOKEN_KEY, this.token);
  }

  /** Forgets the token. */
  disconnect(): void {
    this.token = "";
    this.connected = false;
    sessionStorage.removeItem(TOKEN_KEY);
  }

  onLog(listener: Listener): () => void {
    this.logListeners.add(listener);
    return () => this.logListeners.delete(listener);
  }

  onUnauthorized(listener: Listener): void {
    this.unauthorizedListeners.add(listener);
  }

  /** Records a request in the log; returns the entry to fill in. */
  private record(method: string, url: string, headers: Record<string, string>, body?: string): LogEntry {
    const entry: LogEntry = {
      id: this.nextId++,
      method,
      url,
      headers,
      authorized: this.token !== "",
      startedAt: Date.now(),
    };
    if (body !== undefined) entry.body = body;
    this.log.push(entry);
    if (this.log.length > 1000) this.log.shift();
    this.changed();
    return entry;
  }

  /** Tells the log's listeners an entry changed. */
  changed(): void {
    for (const listener of this.logListeners) listener();
  }

  /** Sends a request; `accept` other than JSON gives the raw response for streaming. */
  async send(
    method: string,
    path: string,
    options: { body?: unknown; raw?: Blob; accept?: string; headers?: Record<string, string>; signal?: AbortSignal } = {},
  ): Promise<{ response: Response; entry: LogEntry }> {
    const url = this.base + path;
    const headers: Record<string, string> = { ...options.headers };
    if (options.accept) headers["accept"] = options.accept;
    let body: string | Blob | undefined;
    let logged: string | undefined;
    if (options.raw !== undefined) {
      body = options.raw;
      logged = `(${options.raw.size} bytes)`;
      headers["content-type"] = "application/octet-stream";
    } else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      logged = body;
      headers["content-type"] = "application/json";
    }
    const entry = this.record(method, url, { ...headers }, logged);
    if (this.token) headers["authorization"] = `Bearer ${this.token}`;
    const started = performance.now();
    let response: Response;
    try {
      const init: RequestInit = { method, headers };
      if (body !== undefined) init.body = body;
      if (options.signal) init.signal = options.signal;
      response = await fetch(url, init);
    } catch (error) {
      entry.ms = Math.round(performance.now() - started);
      entry.error = error instanceof Error ? error.message : String(error);
      this.changed();
      throw error;
    }
    entry.status = response.status;
    entry.ms = Math.round(performance.now() - started);
    this.changed();
    if (!response.ok) {
      const text = await response.text().catch(() => "");
      let problem: ProblemDetails | undefined;
      try {
        problem = JSON.parse(text) as ProblemDetails;
      } catch {
        problem = undefined;
      }
      if (response.status === 401) for (const listener of this.unauthorizedListeners) listener();
      throw new ApiError(response.status, problem);
    }
    return { response, entry };
  }

  /** A request whose answer is JSON (or nothing, for 204). */
  async json<T>(method: string, path: string, body?: unknown): Promise<T> {
    const options: { body?: unknown } = {};
    if (body !== undefined) options.body = body;
    const { response } = await this.send(method, path, options);
    if (response.status === 204) return undefined as T;
    return (await response.json()) as T;
  }
}

/** The inspector's one connection. */
export const api = new Connection();

/** Encodes one path segment. */
export function seg(value: string): string {
  return encodeURIComponent(value);
}
