/**
 * `ProcessTerminal`: a WebSocket to a process's pseudo-terminal
 * (`GET /v1/processes/{id}/terminal/ws`). The terminal's output comes in binary frames
 * (the scrollback first); keystrokes, resizes and the close go out as JSON control frames.
 */
import { AgentplexError } from "./errors.js";
import { DEFAULT_TIMEOUT_MS } from "./http.js";
import { bytesToBase64 } from "./process-logs.js";
import type { ProcessInfo, TerminalClientFrame, TerminalServerFrame } from "./types.js";

/** A `WebSocket` class: the global one (browsers, Bun, Node 22+), or one from the `ws` package. */
export type WebSocketConstructor = new (url: string, protocols?: string | string[]) => WebSocket;

/** Options of `connectProcessTerminal`. */
export interface ConnectProcessTerminalOptions {
  /**
   * The `WebSocket` class to use; the global one when absent. Node 20 has none: pass the `ws`
   * package's (`import WebSocket from "ws"`).
   */
  WebSocket?: WebSocketConstructor;
  /** The token sent as `access_token`; the client's when absent. */
  accessToken?: string;
  /** Aborts the connection attempt (the call rejects with the signal's reason). */
  signal?: AbortSignal;
  /** How long to wait for the terminal to be ready, in ms (default: the client's `timeoutMs`; 0: no limit). */
  timeoutMs?: number;
}

/** How a terminal's process ended (the daemon's `exit` frame). */
export interface TerminalExit {
  exitCode: number | null;
  signal: number | null;
}

/** How a terminal's socket closed. */
export interface TerminalClose {
  code: number;
  reason: string;
}

/** What `connectProcessTerminal` needs of the client: where the socket goes, why it failed. */
export interface TerminalEndpoint {
  url: string;
  /** The process's record, to tell why a socket closed before it was ready. */
  describe: () => Promise<ProcessInfo>;
}

type Listener<T> = (value: T) => void;

export class ProcessTerminal {
  /** The process whose terminal this is. */
  readonly processId: string;
  /** Resolves when the socket has closed (after the process exited, `close()`, or a drop). */
  readonly closed: Promise<TerminalClose>;
  private readonly socket: WebSocket;
  private readonly dataListeners = new Set<Listener<Uint8Array>>();
  private readonly exitListeners = new Set<Listener<TerminalExit>>();
  private readonly errorListeners = new Set<Listener<string>>();
  /** Output that came before any `onData` listener, handed to the first one. */
  private pending: Uint8Array[] = [];
  private exit: TerminalExit | undefined;

  /** Use `client.connectProcessTerminal(id)`, which resolves once the terminal is ready. */
  private constructor(processId: string, socket: WebSocket, ready: (error?: unknown) => void) {
    this.processId = processId;
    this.socket = socket;
    socket.binaryType = "arraybuffer";
    socket.addEventListener("message", (event: MessageEvent) => {
      if (typeof event.data === "string") this.control(event.data, ready);
      else this.output(toBytes(event.data));
    });
    // A failed handshake or a dropped connection: the `close` event that follows says how.
    socket.addEventListener("error", () => undefined);
    this.closed = new Promise((resolve) => {
      socket.addEventListener("close", (event: CloseEvent) => {
        const close = { code: event.code, reason: event.reason };
        ready(close);
        resolve(close);
      });
    });
  }

  /**
   * Opens the socket and resolves once the daemon sent `ready`. A socket that closes before
   * that rejects with the reason: `ProcessNotFoundError` (404), `ProcessConflictError` (409,
   * the process has no terminal), `TokenInvalidError`, or a `network_error`.
   */
  static async open(
    processId: string,
    endpoint: TerminalEndpoint,
    options: ConnectProcessTerminalOptions = {},
  ): Promise<ProcessTerminal> {
    const { signal, timeoutMs = DEFAULT_TIMEOUT_MS } = options;
    signal?.throwIfAborted();
    const Socket = options.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
    if (!Socket) {
      throw new TypeError("no WebSocket implementation: pass `WebSocket` (on Node 20, the `ws` package's)");
    }
    let settle!: (error?: unknown) => void;
    const ready = new Promise<void>((resolve, reject) => {
      let done = false;
      settle = (error) => {
        if (done) return;
        done = true;
        if (error === undefined) resolve();
        else reject(error);
      };
    });
    const terminal = new ProcessTerminal(processId, new Socket(endpoint.url), (failure) => settle(failure));
    const onAbort = () => settle(signal!.reason);
    signal?.addEventListener("abort", onAbort, { once: true });
    const timer =
      timeoutMs > 0
        ? setTimeout(
            () => settle(AgentplexError.create("timeout", 0, `the terminal of process "${processId}" was not ready within ${timeoutMs} ms`)),
            timeoutMs,
          )
        : undefined;
    try {
      await ready;
      return terminal;
    } catch (failure) {
      terminal.socket.close();
      if (isClose(failure)) throw await whyClosed(processId, endpoint, failure);
      throw failure;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    }
  }

  /** Calls `listener` with each chunk of output (the scrollback first). Returns its removal. */
  onData(listener: Listener<Uint8Array>): () => void {
    this.dataListeners.add(listener);
    const held = this.pending;
    this.pending = [];
    held.forEach((chunk) => listener(chunk));
    return () => this.dataListeners.delete(listener);
  }

  /** Calls `listener` when the process exits (at once if it has). Returns its removal. */
  onExit(listener: Listener<TerminalExit>): () => void {
    this.exitListeners.add(listener);
    if (this.exit) listener(this.exit);
    return () => this.exitListeners.delete(listener);
  }

  /** Calls `listener` with the message of each control frame the daemon refused. */
  onError(listener: Listener<string>): () => void {
    this.errorListeners.add(listener);
    return () => this.errorListeners.delete(listener);
  }

  /** Sends keystrokes: a string as UTF-8, bytes as they are. A `network_error` once closed. */
  sendInput(data: string | Uint8Array): void {
    this.send(
      typeof data === "string"
        ? { type: "input", data, encoding: "utf8" }
        : { type: "input", data: bytesToBase64(data), encoding: "base64" },
    );
  }

  /** Sets the terminal's size (shared by every viewer; the process gets SIGWINCH). */
  resize(cols: number, rows: number): void {
    this.send({ type: "resize", cols, rows });
  }

  /** Closes this socket; the process goes on. Resolves once it has closed. */
  async close(): Promise<TerminalClose> {
    if (this.socket.readyState === 1) this.send({ type: "close" });
    if (this.socket.readyState < 2) this.socket.close(1000);
    return this.closed;
  }

  private send(frame: TerminalClientFrame): void {
    if (this.socket.readyState !== 1) {
      throw AgentplexError.create("network_error", 0, `the terminal of process "${this.processId}" is closed`);
    }
    this.socket.send(JSON.stringify(frame));
  }

  private control(text: string, ready: (error?: unknown) => void): void {
    let frame: TerminalServerFrame;
    try {
      frame = JSON.parse(text) as TerminalServerFrame;
    } catch {
      return; // not a control frame of this protocol version
    }
    if (frame.type === "ready") ready();
    else if (frame.type === "exit") {
      this.exit = { exitCode: frame.exitCode ?? null, signal: frame.signal ?? null };
      this.exitListeners.forEach((listener) => listener(this.exit!));
    } else if (frame.type === "error") this.errorListeners.forEach((listener) => listener(frame.message));
  }

  private output(chunk: Uint8Array): void {
    if (this.dataListeners.size === 0) this.pending.push(chunk);
    else this.dataListeners.forEach((listener) => listener(chunk));
  }
}

function toBytes(data: unknown): Uint8Array {
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  throw new TypeError("a terminal frame of an unknown binary type");
}

function isClose(value: unknown): value is TerminalClose {
  return typeof value === "object" && value !== null && "code" in value && "reason" in value && !(value instanceof Error);
}

/**
 * The error of a socket that closed before `ready`: a browser's WebSocket cannot see the
 * upgrade's HTTP answer, so the process's record says why (an unknown process, no terminal).
 */
async function whyClosed(processId: string, endpoint: TerminalEndpoint, close: TerminalClose): Promise<unknown> {
  let info: ProcessInfo;
  try {
    info = await endpoint.describe();
  } catch (error) {
    return error;
  }
  if (!info.tty) {
    return AgentplexError.create("process_conflict", 409, `process "${processId}" has no terminal (it was started without tty)`);
  }
  return AgentplexError.create(
    "network_error",
    0,
    `the terminal socket of process "${processId}" closed before it was ready (code ${close.code}${close.reason ? `: ${close.reason}` : ""})`,
  );
}
