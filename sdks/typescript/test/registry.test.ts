/**
 * The ACP registry's routes (`GET /v1/registry`, `POST /v1/registry/{agent}`) against daemons
 * reading a registry snapshot file (`--acp-registry FILE`) whose agent's archive is on a port
 * nothing listens on, so nothing is installed from the network; and the event stream of an
 * add, against a local server.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  Agentplex,
  InstallFailedError,
  InvalidRequestError,
  StreamError,
  UnsupportedAgentError,
  type InstallProgress,
} from "../src/index.js";
import { failure, startDaemon, type Daemon } from "./helpers.js";

const archive = { archive: "http://127.0.0.1:9/none.tar.gz", cmd: "./demo" };
/** A registry entry installable on every platform a test runs on, from an unreachable archive. */
const entry = (id: string) => ({
  id,
  name: `Name of ${id}`,
  version: "1.0.0",
  description: "d",
  distribution: {
    binary: Object.fromEntries(
      ["linux-x86_64", "linux-aarch64", "darwin-x86_64", "darwin-aarch64", "windows-x86_64"].map((p) => [p, archive]),
    ),
  },
});

let home: string;
let registryFile: string;
let daemon: Daemon;
let client: Agentplex;

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), "agentplex-sdk-registry-"));
  registryFile = join(home, "registry.json");
  // `mock` is one of the daemon's own agents: the registry's is refused.
  writeFileSync(registryFile, JSON.stringify({ version: "1.0.0", agents: [entry("demo-agent"), entry("mock")] }));
  daemon = await startDaemon({ home, args: ["--acp-registry", registryFile] });
  client = new Agentplex({ baseUrl: daemon.baseUrl });
});
afterAll(async () => {
  await daemon?.stop();
  rmSync(home, { recursive: true, force: true });
});

describe("the ACP registry", () => {
  it("lists the snapshot's agents, not added yet", async () => {
    const listing = await client.listRegistry();
    expect(listing.source).toBe(registryFile);
    expect(listing.stale ?? null).toBeNull();
    expect(listing.agents.map((agent) => agent.id)).toEqual(["demo-agent", "mock"]);
    expect(listing.agents[0]).toMatchObject({
      id: "demo-agent",
      name: "Name of demo-agent",
      version: "1.0.0",
      distributions: ["binary"],
      installable: true,
      added: false,
    });
    expect((await client.listRegistry({ refresh: true })).agents).toHaveLength(2);
  });

  it("refuses an agent the registry does not list, and one of the daemon's own", async () => {
    const unknown = await failure(client.addFromRegistry("no-such-agent"));
    expect(unknown).toBeInstanceOf(UnsupportedAgentError);
    expect(unknown).toMatchObject({ status: 404, code: "unsupported_agent", agent: "no-such-agent" });
    const own = await failure(client.addFromRegistry("mock", { env: ["MOCK_API_KEY"] }));
    expect(own).toBeInstanceOf(InvalidRequestError);
    expect(own).toMatchObject({ status: 409, code: "invalid_request" });
    const streamed = await failure(client.addFromRegistryProgress("no-such-agent").next());
    expect(streamed).toBeInstanceOf(UnsupportedAgentError);
    const badEnv = await failure(client.addFromRegistry("demo-agent", { env: ["1-NOT-A-NAME"] }));
    expect(badEnv).toBeInstanceOf(InvalidRequestError);
    expect(badEnv.status).toBe(400);
  });

  it("rejects with InstallFailedError when the agent's archive cannot be fetched", async () => {
    const seen: InstallProgress[] = [];
    const error = await failure(
      client.addFromRegistry("demo-agent", { env: ["DEMO_API_KEY"], onProgress: (p) => seen.push(p) }),
    );
    expect(error).toBeInstanceOf(InstallFailedError);
    expect(error).toMatchObject({ status: 500, code: "install_failed", agent: "demo-agent" });
    expect(error.detail).toContain("http://127.0.0.1:9/none.tar.gz");
    const again = await failure(client.addFromRegistry("demo-agent", { reinstall: true }));
    expect(again).toBeInstanceOf(InstallFailedError);
  });

  it("rejects with StreamError when the index cannot be fetched", async () => {
    const offline = await startDaemon({ home, args: ["--acp-registry", "http://127.0.0.1:9/registry.json"] });
    try {
      const client = new Agentplex({ baseUrl: offline.baseUrl, maxRetries: 0 });
      const error = await failure(client.listRegistry());
      expect(error).toBeInstanceOf(StreamError);
      expect(error.status).toBe(502);
      expect(await failure(client.addFromRegistry("demo-agent"))).toBeInstanceOf(StreamError);
    } finally {
      await offline.stop();
    }
  });

  it("streams the install's progress, then its result, and sends env and reinstall", async () => {
    const stream =
      'event: progress\ndata: {"agent":"demo-agent","stage":"downloading","target":"u","bytesDone":1,"bytesTotal":2}\n\n' +
      'event: result\ndata: {"agent":"demo-agent","version":"1.0.0","path":"/bin/demo","alreadyInstalled":false,"source":"u"}\n\n';
    const requests: string[] = [];
    const server = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c));
      req.on("end", () => {
        requests.push(`${req.method} ${req.url} ${req.headers.accept} ${body}`);
        res.writeHead(200, { "content-type": "text/event-stream" }).end(stream);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const local = new Agentplex({ baseUrl: `http://127.0.0.1:${(server.address() as { port: number }).port}` });
      const events = [];
      for await (const e of local.addFromRegistryProgress("demo-agent", { env: ["K"], reinstall: true })) events.push(e);
      expect(events.map((e) => e.event)).toEqual(["progress", "result"]);
      const stages: string[] = [];
      const result = await local.addFromRegistry("demo-agent", { onProgress: (p) => stages.push(p.stage) });
      expect(stages).toEqual(["downloading"]);
      expect(result).toEqual({ agent: "demo-agent", version: "1.0.0", path: "/bin/demo", alreadyInstalled: false, source: "u" });
      expect(requests).toEqual([
        'POST /v1/registry/demo-agent text/event-stream {"env":["K"],"reinstall":true}',
        "POST /v1/registry/demo-agent text/event-stream {}",
      ]);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
