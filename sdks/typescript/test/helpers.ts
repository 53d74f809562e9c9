/** What the tests share: daemons of the binary under test, ids, a TCP proxy that can drop connections. */
import { createConnection, createServer, type Server, type Socket } from "node:net";
import { expect, inject } from "vitest";
import { AgentplexError } from "../src/index.js";
import { spawnDaemon, type Daemon } from "./daemon.js";

export { freePort, type Daemon } from "./daemon.js";

/**
 * A daemon of the binary under test with the run's shared compile cache (`home`: its `HOME`;
 * `env`: added to its environment; `args`: added to its command line).
 */
export function startDaemon(
  options: { token?: string; home?: string; env?: Record<string, string>; args?: string[] } = {},
): Promise<Daemon> {
  return spawnDaemon({ binary: inject("binary"), cacheDir: inject("cacheDir"), ...options });
}

/** The `AgentplexError` that `promise` must reject with. */
export async function failure(promise: Promise<unknown>): Promise<AgentplexError> {
  const error = await promise.then(
    () => {
      throw new Error("expected a rejection");
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AgentplexError);
  return error as AgentplexError;
}

let counter = 0;
/** A session id unique within the test run. */
export function uniqueId(prefix = "s"): string {
  counter += 1;
  return `${prefix}-${process.pid}-${counter}`;
}

/** A TCP proxy to `targetPort` that records each connection's request head and can cut them all. */
export interface Proxy {
  port: number;
  baseUrl: string;
  /** The request line and headers of every request sent through the proxy, in order. */
  requests: string[];
  /** Destroys every open connection (both sides); new connections still work. */
  dropAll(): void;
  /** Drops every connection and stops listening: new connections are refused. */
  close(): Promise<void>;
  /** Listens again on the same port after `close`. */
  reopen(): Promise<void>;
}

export async function startProxy(targetPort: number): Promise<Proxy> {
  const open = new Set<Socket>();
  const requests: string[] = [];
  const server: Server = createServer((client) => {
    const upstream = createConnection({ port: targetPort, host: "127.0.0.1" });
    open.add(client);
    open.add(upstream);
    // Requests may share a kept-alive connection: record every request head in the stream.
    let pending = "";
    client.on("data", (chunk: Buffer) => {
      pending += chunk.toString("latin1");
      const head = /(?:GET|POST|PUT|DELETE|OPTIONS) [^\r\n]* HTTP\/1\.1\r\n[\s\S]*?\r\n\r\n/g;
      let match: RegExpExecArray | null;
      let consumed = 0;
      while ((match = head.exec(pending)) !== null) {
        requests.push(match[0].trimEnd());
        consumed = head.lastIndex;
      }
      pending = pending.slice(consumed);
    });
    client.pipe(upstream);
    upstream.pipe(client);
    const close = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on("error", close).on("close", close);
    upstream.on("error", close).on("close", close);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    port,
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    dropAll() {
      for (const socket of open) socket.destroy();
      open.clear();
    },
    close() {
      for (const socket of open) socket.destroy();
      open.clear();
      return new Promise((resolve) => server.close(() => resolve()));
    },
    reopen() {
      return new Promise((resolve) => server.listen(port, "127.0.0.1", resolve));
    },
  };
}

/** Collects an async iterable until `stop` says so (inclusive) or it ends. */
export async function collect<T>(iterable: AsyncIterable<T>, stop?: (item: T) => boolean): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterable) {
    items.push(item);
    if (stop?.(item)) break;
  }
  return items;
}
