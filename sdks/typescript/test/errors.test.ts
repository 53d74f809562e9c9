/** Token auth, problem documents, failures that are not problem documents, aborts. */
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  connect,
  NetworkError,
  Agentplex,
  AgentplexError,
  SessionElsewhereError,
  TokenInvalidError,
  UnexpectedResponseError,
} from "../src/index.js";
import { collect, failure, freePort, startDaemon, uniqueId, type Daemon } from "./helpers.js";

const TOKEN = "sdk-test-token";
let daemon: Daemon;

beforeAll(async () => {
  daemon = await startDaemon({ token: TOKEN });
});
afterAll(() => daemon?.stop());


describe("token auth", () => {
  it("works with the token, on plain and streaming routes", async () => {
    const client = await connect({ baseUrl: daemon.baseUrl, token: TOKEN });
    expect(client.token).toBe(TOKEN);
    expect((await client.listAgents()).some((a) => a.id === "mock")).toBe(true);
    const session = await client.createSession(uniqueId("auth"), { agent: "mock" });
    expect((await session.prompt("hello")).text).toBe("hello");
    const events = await collect(session.events(), (e) => e.type === "turn.ended");
    expect(events.length).toBeGreaterThan(3);
  });

  it("maps a missing or wrong token to token_invalid, SSE included", async () => {
    for (const token of [undefined, "wrong"]) {
      const client = new Agentplex({ baseUrl: daemon.baseUrl, ...(token ? { token } : {}) });
      const error = await failure(client.listAgents());
      expect(error).toMatchObject({
        type: "urn:sandbox-agent:error:token_invalid",
        code: "token_invalid",
        status: 401,
        title: "Unauthorized",
      });
      expect(error.detail).toMatch(/token/);
      expect(error.problem).toMatchObject({ status: 401 });
      expect(error.message).toBe(`Unauthorized: ${error.detail}`);
      expect((await failure(collect(client.session("x").events()))).code).toBe("token_invalid");
      expect((await failure(client.session("x").prompt("hi"))).code).toBe("token_invalid");
    }
  });
});

describe("connect()", () => {
  it("says precisely what is wrong: no token, wrong token", async () => {
    const none = await failure(connect({ baseUrl: daemon.baseUrl }));
    expect(none).toBeInstanceOf(TokenInvalidError);
    expect(none.detail).toMatch(/requires a token and none was given/);
    const wrong = await failure(connect({ baseUrl: daemon.baseUrl, token: "wrong" }));
    expect(wrong).toBeInstanceOf(TokenInvalidError);
    expect(wrong.detail).toMatch(/refused the token given/);
    expect(wrong.status).toBe(401);
  });

  it("says when nothing answers, or something that is not a daemon", async () => {
    const port = await freePort();
    const unreachable = await failure(connect({ baseUrl: `http://127.0.0.1:${port}` }));
    expect(unreachable).toBeInstanceOf(NetworkError);
    expect(unreachable.detail).toMatch(/nothing answers at/);
    const other = createServer((req, res) => {
      if (req.url === "/v1/health") res.writeHead(200, { "content-type": "text/html" }).end("<html>hi</html>");
      else res.writeHead(404).end("no");
    });
    await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(other.address() as { port: number }).port}`;
      const error = await failure(connect({ baseUrl: url }));
      expect(error).toBeInstanceOf(UnexpectedResponseError);
      expect(error.detail).toMatch(/is not an agentplex daemon/);
    } finally {
      other.closeAllConnections();
      other.close();
    }
  });
});

describe("problem documents", () => {
  it("carry the context fields", async () => {
    const client = new Agentplex({ baseUrl: daemon.baseUrl, token: TOKEN });
    const notFound = await failure(client.session("missing").send("hi"));
    expect(notFound).toMatchObject({ code: "session_not_found", status: 404, sessionId: "missing" });
    expect(notFound.detail).toContain("missing");
    const agent = await failure(client.createSession(uniqueId(), { agent: "nope" }));
    expect(agent).toMatchObject({ code: "unsupported_agent", status: 400 });
    expect(agent.agent).toBe("nope");
    // The class keeps exitCode and stderr when a problem has them.
    const made = new AgentplexError({
      type: "urn:sandbox-agent:error:agent_process_exited",
      title: "Internal Server Error",
      status: 500,
      detail: "exited",
      agent: "claude",
      sessionId: "s",
      exitCode: 2,
      stderr: "boom",
    });
    expect(made).toMatchObject({ code: "agent_process_exited", agent: "claude", exitCode: 2, stderr: "boom" });
  });
});

describe("failures that are not problem documents", () => {
  let server: Server;
  let baseUrl: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === "/v1/health") {
        res.writeHead(200, { "content-type": "application/json" }).end('{"status":"ok"}');
      } else if (req.url === "/v1/agents") {
        res.writeHead(502, { "content-type": "text/html" }).end("<html>Bad Gateway</html>");
      } else if (req.url === "/v1/sessions") {
        res.writeHead(200, { "content-type": "application/json" }).end("not json");
      } else if (req.url?.startsWith("/v1/agents/mock/modes")) {
        res.writeHead(404, { "content-type": "application/json" }).end('{"error":"nope"}');
      } else if (req.url?.includes("/events/sse")) {
        res.writeHead(200, { "content-type": "application/json" }).end("{}");
      }
      // anything else: never answers
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it("maps HTTP errors without a problem body to unexpected_response", async () => {
    const client = new Agentplex({ baseUrl });
    const gateway = await failure(client.listAgents());
    expect(gateway).toMatchObject({ code: "unexpected_response", status: 502, title: "Bad Gateway" });
    expect(gateway.detail).toContain("<html>Bad Gateway</html>");
    expect(gateway.problem).toBeUndefined();
    const json404 = await failure(client.listAgentModes("mock"));
    expect(json404).toMatchObject({ code: "unexpected_response", status: 404 });
  });

  it("maps a 2xx body that is not JSON, or not an event stream, to unexpected_response", async () => {
    const client = new Agentplex({ baseUrl });
    expect(await failure(client.listSessions())).toMatchObject({ code: "unexpected_response", status: 200 });
    const stream = await failure(collect(client.session("s").events({ maxRetries: 1, retryDelayMs: 1 })));
    expect(stream.code).toBe("stream_error");
    expect((stream.cause as AgentplexError).code).toBe("unexpected_response");
  });

  it("rejects with the abort reason, before or during a request", async () => {
    const client = new Agentplex({ baseUrl });
    const before = new AbortController();
    before.abort();
    await expect(client.health({ signal: before.signal })).rejects.toMatchObject({ name: "AbortError" });
    const during = new AbortController();
    const reason = new Error("stop waiting");
    setTimeout(() => during.abort(reason), 50);
    await expect(client.session("s").send("hi", { signal: during.signal })).rejects.toBe(reason);
    const connecting = new AbortController();
    setTimeout(() => connecting.abort(), 50);
    await expect(client.installAgent("mock", { signal: connecting.signal })).rejects.toMatchObject({
      name: "AbortError",
    });
  });
});

describe("a daemon of a fleet (daemons sharing one database)", () => {
  const SESSION = {
    sessionId: "busy",
    agent: "mock",
    agentMode: "build",
    permissionMode: "default",
    ended: false,
    eventCount: 2,
    createdAt: 0,
    updatedAt: 0,
    status: "idle",
    queuedMessages: 0,
    owner: "first",
    ownerAlive: true,
  };
  const ELSEWHERE = {
    type: "urn:sandbox-agent:error:session_elsewhere",
    title: "Conflict",
    status: 409,
    detail: 'session "busy" is driven by daemon "first" of the fleet; ask that daemon',
    sessionId: "busy",
  };
  let server: Server;
  let baseUrl: string;
  const urls: string[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      urls.push(req.url ?? "");
      if (req.url?.startsWith("/v1/sessions?") || req.url === "/v1/sessions") {
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ sessions: [SESSION] }));
      } else {
        res.writeHead(409, { "content-type": "application/problem+json" }).end(JSON.stringify(ELSEWHERE));
      }
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it("lists by scope, sent only when given, with each session's owner", async () => {
    const client = new Agentplex({ baseUrl });
    urls.length = 0;
    const [listed] = await client.listSessions();
    await client.listSessions({ scope: "fleet", timeoutMs: 5_000 });
    await client.listSessions({ scope: "daemon" });
    expect(urls).toEqual(["/v1/sessions", "/v1/sessions?scope=fleet", "/v1/sessions?scope=daemon"]);
    expect(listed).toMatchObject({ sessionId: "busy", owner: "first", ownerAlive: true });
  });

  it("maps session_elsewhere (409) to SessionElsewhereError", async () => {
    const client = new Agentplex({ baseUrl });
    const error = await failure(client.getSession("busy"));
    expect(error).toBeInstanceOf(SessionElsewhereError);
    expect(error).toMatchObject({ code: "session_elsewhere", status: 409, title: "Conflict", sessionId: "busy" });
    expect(error.name).toBe("SessionElsewhereError");
    expect(error.detail).toContain('daemon "first"');
    expect(await failure(client.session("busy").send("hi"))).toBeInstanceOf(SessionElsewhereError);
  });
});
