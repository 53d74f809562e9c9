/** Error classes, per-request time limits, retries of idempotent requests, abort signals. */
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as sdk from "../src/index.js";
import {
  ERROR_CLASSES,
  InstallFailedError,
  NetworkError,
  Agentplex,
  AgentplexError,
  SessionNotFoundError,
  TimeoutError,
  TokenInvalidError,
  UnexpectedResponseError,
} from "../src/index.js";
import { failure, startDaemon, type Daemon } from "./helpers.js";
import { readFileSync } from "node:fs";

const openapi: unknown = JSON.parse(readFileSync(new URL("../../../docs/openapi.json", import.meta.url), "utf8"));

let daemon: Daemon;
let silent: Server;
let silentUrl: string;

beforeAll(async () => {
  daemon = await startDaemon();
  // Accepts connections and never answers.
  silent = createServer(() => undefined);
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
  silentUrl = `http://127.0.0.1:${(silent.address() as { port: number }).port}`;
});
afterAll(async () => {
  silent?.closeAllConnections();
  silent?.close();
  await daemon?.stop();
});

describe("error classes", () => {
  it("has one class per problem code of the API, exported by name", () => {
    const codes = (openapi as { components: { schemas: { ErrorType: { enum: string[] } } } }).components.schemas
      .ErrorType.enum;
    for (const code of codes) {
      const Class = ERROR_CLASSES[code];
      expect(Class, code).toBeDefined();
      expect((sdk as Record<string, unknown>)[Class!.name], code).toBe(Class);
      const error = AgentplexError.create(code, 500);
      expect(error).toBeInstanceOf(Class!);
      expect(error).toBeInstanceOf(AgentplexError);
      expect(error.name).toBe(Class!.name);
    }
    for (const code of ["network_error", "timeout", "unexpected_response", "daemon_exited", "binary_not_found"]) {
      expect(ERROR_CLASSES[code], code).toBeDefined();
    }
  });

  it("keeps instanceof of a subclass of yours to its own instances", () => {
    class MyError extends AgentplexError {}
    const mine = new MyError({ type: "urn:sandbox-agent:error:internal", status: 500, title: "x" });
    expect(mine).toBeInstanceOf(MyError);
    expect(mine).toBeInstanceOf(AgentplexError);
    expect(AgentplexError.create("internal", 500)).not.toBeInstanceOf(MyError);
  });

  it("maps a problem document to its class, with its fields", async () => {
    const client = new Agentplex({ baseUrl: daemon.baseUrl });
    const error = await failure(client.getSession("nosuch"));
    expect(error).toBeInstanceOf(SessionNotFoundError);
    expect(error).not.toBeInstanceOf(TokenInvalidError);
    expect(error).toMatchObject({ code: "session_not_found", status: 404, sessionId: "nosuch", name: "SessionNotFoundError" });
    expect(error.problem?.type).toBe("urn:sandbox-agent:error:session_not_found");
  });
});

describe("time limits", () => {
  it("rejects with a TimeoutError past the client's timeoutMs", async () => {
    const client = new Agentplex({ baseUrl: silentUrl, timeoutMs: 150 });
    const started = Date.now();
    const error = await failure(client.listSessions());
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ code: "timeout", status: 0 });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it("takes a per-call timeoutMs over the client's", async () => {
    const client = new Agentplex({ baseUrl: silentUrl, timeoutMs: 60_000 });
    expect(await failure(client.health({ timeoutMs: 100 }))).toBeInstanceOf(TimeoutError);
  });

  it("rejects with the signal's reason on abort, on every kind of call", async () => {
    const client = new Agentplex({ baseUrl: silentUrl });
    const reason = new Error("stop");
    const calls = [
      (signal: AbortSignal) => client.listAgents({ signal }),
      (signal: AbortSignal) => client.readFsFileStream({ path: "/x" }, { signal }),
      (signal: AbortSignal) => client.session("s").send("hi", { signal }),
    ];
    for (const call of calls) {
      const controller = new AbortController();
      const pending = call(controller.signal);
      setTimeout(() => controller.abort(reason), 50);
      await expect(pending).rejects.toBe(reason);
    }
  });
});

describe("retries", () => {
  /** A fetch that fails the first `n` calls (network error, or an answer of `status`). */
  function flaky(n: number, status?: number) {
    const calls: string[] = [];
    const fetchImpl: typeof fetch = async (input, init) => {
      calls.push(`${init?.method} ${String(input)}`);
      if (calls.length <= n) {
        if (status) return new Response("<html>bad gateway</html>", { status });
        throw new TypeError("fetch failed");
      }
      return fetch(input, init);
    };
    return { calls, fetchImpl };
  }

  it("retries a GET after network errors and 502/503/504", async () => {
    for (const status of [undefined, 502, 503, 504]) {
      const { calls, fetchImpl } = flaky(2, status);
      const client = new Agentplex({ baseUrl: daemon.baseUrl, fetch: fetchImpl, retryDelayMs: 10 });
      expect(Array.isArray(await client.listSessions())).toBe(true);
      expect(calls).toHaveLength(3);
    }
  });

  it("gives up after maxRetries, with the last failure", async () => {
    const { calls, fetchImpl } = flaky(10);
    const client = new Agentplex({ baseUrl: daemon.baseUrl, fetch: fetchImpl, retryDelayMs: 10, maxRetries: 1 });
    expect(await failure(client.listSessions())).toBeInstanceOf(NetworkError);
    expect(calls).toHaveLength(2);
    const { calls: once, fetchImpl: f2 } = flaky(10, 503);
    const single = new Agentplex({ baseUrl: daemon.baseUrl, fetch: f2, retryDelayMs: 10 });
    const error = await failure(single.listSessions({ maxRetries: 0 }));
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect(error.status).toBe(503);
    expect(once).toHaveLength(1);
  });

  it("does not send a POST twice", async () => {
    const { calls, fetchImpl } = flaky(1, 503);
    const client = new Agentplex({ baseUrl: daemon.baseUrl, fetch: fetchImpl, retryDelayMs: 10 });
    expect((await failure(client.mkdirFs({ path: "/tmp/x-retry" }))).status).toBe(503);
    expect(calls).toHaveLength(1);
  });

  it("retries a PUT of bytes, not of a stream", async () => {
    const { calls, fetchImpl } = flaky(1);
    const client = new Agentplex({ baseUrl: daemon.baseUrl, fetch: fetchImpl, retryDelayMs: 10 });
    const path = `/tmp/sdk-retry-${process.pid}.txt`;
    expect((await client.writeFsFile({ path }, "hello")).bytesWritten).toBe(5);
    expect(calls).toHaveLength(2);
    const { calls: c2, fetchImpl: f2 } = flaky(1);
    const streaming = new Agentplex({ baseUrl: daemon.baseUrl, fetch: f2, retryDelayMs: 10 });
    const body = new ReadableStream<Uint8Array>({
      start: (c) => {
        c.enqueue(new TextEncoder().encode("x"));
        c.close();
      },
    });
    expect(await failure(streaming.writeFsFile({ path }, body))).toBeInstanceOf(NetworkError);
    expect(c2).toHaveLength(1);
    await client.deleteFsEntry({ path });
  });
});

describe("install progress", () => {
  it("resolves with the daemon's result", async () => {
    const client = new Agentplex({ baseUrl: daemon.baseUrl });
    const seen: unknown[] = [];
    const result = await client.installAgent("mock", { onProgress: (p) => seen.push(p) });
    expect(result).toMatchObject({ agent: "mock", alreadyInstalled: true });
    expect(await failure(client.installAgent("nope"))).toMatchObject({ code: "unsupported_agent" });
  });

  it("hands every progress event to onProgress, and an error event rejects with InstallFailedError", async () => {
    const streams: Record<string, string> = {
      "/v1/agents/ok/install":
        'event: progress\ndata: {"agent":"ok","stage":"downloading","target":"u","bytesDone":1,"bytesTotal":2}\n\n' +
        'event: progress\ndata: {"agent":"ok","stage":"verifying"}\n\n' +
        'event: result\ndata: {"agent":"ok","version":"1.0.0","path":"/bin/ok","alreadyInstalled":false,"source":"u"}\n\n',
      "/v1/agents/bad/install":
        'event: progress\ndata: {"agent":"bad","stage":"resolving"}\n\n' +
        'event: error\ndata: {"type":"urn:sandbox-agent:error:install_failed","title":"Internal Server Error","status":500,"detail":"u: 404","agent":"bad"}\n\n',
    };
    const bodies: string[] = [];
    const server = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c));
      req.on("end", () => {
        bodies.push(`${req.headers.accept} ${body}`);
        res.writeHead(200, { "content-type": "text/event-stream" }).end(streams[req.url ?? ""] ?? "");
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const client = new Agentplex({ baseUrl: `http://127.0.0.1:${(server.address() as { port: number }).port}` });
      const stages: string[] = [];
      const result = await client.installAgent("ok", { version: "1.0.0", onProgress: (p) => stages.push(p.stage) });
      expect(stages).toEqual(["downloading", "verifying"]);
      expect(result).toEqual({ agent: "ok", version: "1.0.0", path: "/bin/ok", alreadyInstalled: false, source: "u" });
      expect(bodies[0]).toBe('text/event-stream {"version":"1.0.0"}');
      const events = [];
      for await (const e of client.installAgentProgress("ok")) events.push(e.event);
      expect(events).toEqual(["progress", "progress", "result"]);
      const error = await failure(client.installAgent("bad"));
      expect(error).toBeInstanceOf(InstallFailedError);
      expect(error).toMatchObject({ status: 500, agent: "bad", detail: "u: 404" });
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
