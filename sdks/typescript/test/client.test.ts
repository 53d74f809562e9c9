/** Every non-streaming route, against the real daemon and its mock agent. */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  Agentplex,
  AgentplexError,
  connect,
  NotConfiguredError,
  type Session,
  type UniversalEvent,
} from "../src/index.js";
import { collect, failure, freePort, startDaemon, uniqueId, type Daemon } from "./helpers.js";

let daemon: Daemon;
let client: Agentplex;

beforeAll(async () => {
  daemon = await startDaemon();
  client = await connect({ baseUrl: `${daemon.baseUrl}/` });
});
afterAll(() => daemon?.stop());

/** Events of the session until (and including) the first that `stop` accepts. */
function until(session: Session, stop: (e: UniversalEvent) => boolean, offset = 0) {
  return collect(session.events({ offset }), stop);
}


describe("connect and health", () => {
  it("checks health and keeps the base URL without a trailing slash", async () => {
    expect(client.baseUrl).toBe(daemon.baseUrl);
    const health = await client.health();
    expect(health.status).toBe("ok");
    expect(typeof health.version).toBe("string");
  });

  it("fails with network_error when nothing listens", async () => {
    const port = await freePort();
    const error = await failure(connect({ baseUrl: `http://127.0.0.1:${port}` }));
    expect(error.code).toBe("network_error");
    expect(error.type).toBe("urn:sandbox-agent:error:network_error");
    expect(error.status).toBe(0);
    expect(error.title).toBe("Network Error");
    expect(error.cause).toBeDefined();
  });

  it("serves the OpenAPI document the SDK types were generated from", async () => {
    const committed = JSON.parse(readFileSync(new URL("../../../docs/openapi.json", import.meta.url), "utf8"));
    expect(await client.openapi()).toEqual(committed);
  });

  it("reads the metrics as OpenMetrics text", async () => {
    const text = await client.metrics();
    expect(text).toMatch(/^# HELP agentplex_/m);
    expect(text).toMatch(/^agentplex_process_resident_memory_bytes \d+$/m);
    expect(text.endsWith("# EOF\n")).toBe(true);
  });
});

describe("agents", () => {
  it("lists the mock agent", async () => {
    const agents = await client.listAgents();
    const mock = agents.find((a) => a.id === "mock");
    expect(mock).toMatchObject({ installed: true, credentialsAvailable: true });
    expect(mock!.capabilities.permissions).toBe(true);
    expect(mock!.capabilities.questions).toBe(true);
  });

  it("lists modes and models", async () => {
    const modes = await client.listAgentModes("mock");
    expect(modes.map((m) => m.id)).toEqual(["build", "plan"]);
    const models = await client.listAgentModels("mock");
    expect(models.defaultModel).toBe("mock");
    expect(models.models.find((m) => m.id === "mock-large")).toMatchObject({
      variants: ["low", "medium", "high"],
      defaultVariant: "medium",
    });
  });

  it("installs (a no-op for the builtin mock) and maps unknown agents", async () => {
    await expect(client.installAgent("mock")).resolves.toMatchObject({ agent: "mock", alreadyInstalled: true });
    await expect(client.installAgent("mock", { reinstall: false })).resolves.toMatchObject({ agent: "mock", alreadyInstalled: true });
    const error = await failure(client.listAgentModes("no-such-agent"));
    expect(error).toMatchObject({ code: "unsupported_agent", status: 404, title: "Not Found" });
    expect((await failure(client.installAgent("no-such-agent"))).code).toBe("unsupported_agent");
    expect((await failure(client.listAgentModels("no-such-agent"))).code).toBe("unsupported_agent");
  });
});

describe("adapters", () => {
  it("reloads the adapters folder; NotConfiguredError (409) without one", async () => {
    const error = await failure(client.reloadAdapters());
    expect(error).toBeInstanceOf(NotConfiguredError);
    expect(error.status).toBe(409);
    const folder = mkdtempSync(join(tmpdir(), "agentplex-sdk-adapters-"));
    const withFolder = await startDaemon({ env: { SANDBOX_AGENT_ADAPTERS_DIR: folder } });
    try {
      const reloaded = await new Agentplex({ baseUrl: withFolder.baseUrl }).reloadAdapters();
      expect(reloaded).toEqual({ adapters: [], skipped: [] });
    } finally {
      await withFolder.stop();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe("sessions", () => {
  it("creates a session with every option and gets it back", async () => {
    const id = uniqueId("create");
    const session = await client.createSession(id, {
      agent: "mock",
      agentMode: "plan",
      permissionMode: "bypass",
      model: "mock-large",
      variant: "high",
      title: "SDK test",
    });
    expect(session.id).toBe(id);
    expect(session.created).toMatchObject({ healthy: true, nativeSessionId: `mock-${id}` });

    const got = await client.getSession(id);
    expect(got.info).toMatchObject({
      sessionId: id,
      agent: "mock",
      agentMode: "plan",
      permissionMode: "bypass",
      model: "mock-large",
      variant: "high",
      title: "SDK test",
      ended: false,
      status: "idle",
      queuedMessages: 0,
    });
    expect((await client.listSessions()).map((s) => s.sessionId)).toContain(id);
    const handle = client.session(id);
    expect(handle.info).toBeUndefined();
    expect((await handle.refresh()).eventCount).toBe(1);
  });

  it("lists the daemon's sessions by scope; without a shared database the fleet is this daemon", async () => {
    const id = uniqueId("scope");
    await client.createSession(id, { agent: "mock" });
    for (const scope of ["daemon", "fleet"] as const) {
      expect((await client.listSessions({ scope })).map((s) => s.sessionId), scope).toContain(id);
    }
  });

  it("maps creation errors", async () => {
    const id = uniqueId("dup");
    await client.createSession(id, { agent: "mock" });
    const dup = await failure(client.createSession(id, { agent: "mock" }));
    expect(dup).toMatchObject({ code: "session_already_exists", status: 409, title: "Conflict" });
    expect((await failure(client.createSession("bad id!", { agent: "mock" }))).code).toBe("invalid_request");
    expect((await failure(client.createSession(uniqueId(), { agent: "mock", agentMode: "nope" }))).code).toBe(
      "mode_not_supported",
    );
    expect((await failure(client.createSession(uniqueId(), { agent: "nope" }))).code).toBe("unsupported_agent");
  });

  it("getSession of an unknown id is a typed 404", async () => {
    const error = await failure(client.getSession("no-such-session"));
    expect(error).toMatchObject({
      type: "urn:sandbox-agent:error:session_not_found",
      code: "session_not_found",
      status: 404,
      sessionId: "no-such-session",
    });
    expect(AgentplexError.is(error, "session_not_found")).toBe(true);
  });

  it("sends text, parts and 0.1.x attachments", async () => {
    const session = await client.createSession(uniqueId("send"), { agent: "mock" });
    await session.send("hello text");
    await session.send([{ type: "text", text: "echo from parts" }]);
    await session.send({ message: "with attachment", attachments: [{ path: "/tmp/a.txt", mime: "text/plain" }] });
    let turns = 0;
    const events = await until(session, (e) => e.type === "turn.ended" && ++turns === 3);
    const assistant = events
      .filter((e) => e.type === "item.completed" && e.data.item.role === "assistant")
      .map((e) => (e.type === "item.completed" && e.data.item.content[0]?.type === "text" ? e.data.item.content[0].text : ""));
    expect(assistant).toEqual(["hello text", "from parts", "with attachment\n\nAttachments:\n- /tmp/a.txt"]);
  });

  it("pages events by offset and limit, with raw payloads on request", async () => {
    const session = await client.createSession(uniqueId("page"), { agent: "mock" });
    await session.send("unparsed");
    await until(session, (e) => e.type === "turn.ended");
    const all = await session.getEvents();
    expect(all.hasMore).toBe(false);
    expect(all.events.map((e) => e.sequence)).toEqual(all.events.map((_, i) => i + 1));
    const page = await session.getEvents({ offset: 1, limit: 2 });
    expect(page.events.map((e) => e.sequence)).toEqual([2, 3]);
    expect(page.hasMore).toBe(true);
    const unparsed = all.events.find((e) => e.type === "agent.unparsed")!;
    expect(unparsed.raw).toBeUndefined();
    const raw = await session.getEvents({ offset: unparsed.sequence - 1, limit: 1, includeRaw: true });
    expect(raw.events[0]!.raw).toEqual({ raw: "mock" });
  });

  it("cancels a running turn and keeps the session", async () => {
    const session = await client.createSession(uniqueId("cancel"), { agent: "mock" });
    await session.send("slow 50");
    await until(session, (e) => e.type === "item.delta");
    await session.cancel();
    const events = await until(session, (e) => e.type === "turn.ended");
    const ended = events[events.length - 1]!;
    expect(ended.type === "turn.ended" && ended.data.metadata).toEqual({ cancelled: true });
    expect((await session.refresh()).status).toBe("idle");
    await session.cancel(); // nothing running: a no-op
  });

  it("terminates; later calls are session_ended", async () => {
    const session = await client.createSession(uniqueId("term"), { agent: "mock" });
    await session.terminate();
    const events = await collect(session.events());
    const last = events[events.length - 1]!;
    expect(last.type).toBe("session.ended");
    expect(last.type === "session.ended" && last.data).toMatchObject({ reason: "terminated", terminated_by: "daemon" });
    await session.terminate(); // again: a no-op
    const error = await failure(session.send("hello"));
    expect(error).toMatchObject({ code: "session_ended", status: 409, sessionId: session.id });
    expect((await failure(session.cancel())).code).toBe("session_ended");
    expect((await session.refresh()).ended).toBe(true);
  });

  it("deletes a session and its transcript; later calls are session_not_found", async () => {
    const session = await client.createSession(uniqueId("del"), { agent: "mock" });
    await session.send("echo hi");
    await until(session, (e) => e.type === "turn.ended");
    await session.delete();
    expect((await failure(session.refresh())).code).toBe("session_not_found");
    expect((await failure(session.delete())).status).toBe(404);
  });

  it("replies to permissions and questions by id; unknown ids are request_not_found", async () => {
    const session = await client.createSession(uniqueId("reply"), { agent: "mock" });
    await session.send("permission");
    const perm = await until(session, (e) => e.type === "permission.requested");
    const requested = perm[perm.length - 1]!;
    expect(requested.type).toBe("permission.requested");
    const permissionId = requested.type === "permission.requested" ? requested.data.permission_id : "";
    await session.replyPermission(permissionId, "always");
    let events = await until(session, (e) => e.type === "turn.ended", requested.sequence);
    expect(events.find((e) => e.type === "permission.resolved")?.data).toMatchObject({ status: "accept_for_session" });

    await session.send("question");
    let offset = events[events.length - 1]!.sequence;
    events = await until(session, (e) => e.type === "question.requested", offset);
    const q1 = events[events.length - 1]!;
    await session.replyQuestion(q1.type === "question.requested" ? q1.data.question_id : "", [["Red", "Blue"]]);
    events = await until(session, (e) => e.type === "turn.ended", q1.sequence);
    expect(events.find((e) => e.type === "question.resolved")?.data).toMatchObject({
      status: "answered",
      response: "Red, Blue",
    });

    await session.send("question");
    offset = events[events.length - 1]!.sequence;
    events = await until(session, (e) => e.type === "question.requested", offset);
    const q2 = events[events.length - 1]!;
    const questionId = q2.type === "question.requested" ? q2.data.question_id : "";
    await session.rejectQuestion(questionId);
    events = await until(session, (e) => e.type === "turn.ended", q2.sequence);
    expect(events.find((e) => e.type === "question.resolved")?.data).toMatchObject({ status: "rejected" });

    for (const call of [
      () => session.replyPermission("nope", "once"),
      () => session.replyQuestion(questionId, [["Red"]]),
      () => session.rejectQuestion("nope"),
    ]) {
      expect(await failure(call())).toMatchObject({ code: "request_not_found", status: 404 });
    }
  });
});

describe("approval policies", () => {
  it("decides before the client, records it, is replaced, and refuses what it cannot use", async () => {
    const policy = { rules: [{ tool: "shell" as const, command: "echo *", decision: "allow" as const }] };
    const session = await client.createSession(uniqueId("policy"), { agent: "mock", policy });
    expect((await session.refresh()).policy).toEqual(policy);
    const decided: string[] = [];
    for await (const event of session.stream("permission echo hi")) {
      if (event.type === "permission.decided") decided.push(`${event.data.decision} by ${event.data.by}`);
    }
    expect(decided).toEqual(["allow by rule"]);
    const denyAll = { rules: [], default: "deny" as const };
    expect(await session.setPolicy(denyAll)).toEqual(denyAll);
    const refused = await failure(session.setPolicy({ rules: [{ tool: "shel" as never, decision: "deny" }] }));
    expect(refused.code).toBe("invalid_request");
    expect(refused.detail).toContain("policy.rules[0].tool");
  });
});

describe("modes", () => {
  it("change from the next message on, the model and its variant too, and a mode the agent lacks is refused", async () => {
    const session = await client.createSession(uniqueId("modes"), { agent: "mock" });
    expect(await session.setModes({ agentMode: "plan" })).toEqual({ agentMode: "plan", permissionMode: "default" });
    expect((await session.refresh()).agentMode).toBe("plan");
    expect(await session.getModes()).toEqual({ agentMode: "plan", permissionMode: "default" });
    expect((await session.prompt("shell echo hi")).text).toBe("Plan mode: I would run `echo hi`.");
    const refused = await failure(session.setModes({ agentMode: "architect" }));
    expect(refused.code).toBe("mode_not_supported");
    const changed = await session.setModes({ model: "mock-large" });
    expect(changed.model).toBe("mock-large");
    expect((await session.refresh()).model).toBe("mock-large");
    expect((await session.prompt("settings")).text).toBe("Agent mode plan, permission mode default, model mock-large.");
    expect((await session.setModes({ variant: "high" })).variant).toBe("high");
    expect((await session.getModes()).variant).toBe("high");
    expect((await session.prompt("settings")).text).toBe(
      "Agent mode plan, permission mode default, model mock-large, variant high.",
    );
  });
});

describe("budgets", () => {
  it("caps a session's model calls through the gateway; invalid_request without it", async () => {
    const gated = await startDaemon({ env: { AGENTPLEX_GATEWAY: "1" } });
    try {
      const metered = await connect({ baseUrl: gated.baseUrl });
      const session = await metered.createSession(uniqueId("budget"), {
        agent: "mock",
        budget: { maxTokens: 1000 },
      });
      expect((await session.refresh()).budget).toEqual({ maxTokens: 1000 });
      expect(await session.setBudget({ maxCostUsd: 2.5 })).toEqual({ maxCostUsd: 2.5 });
      expect((await session.refresh()).budget).toEqual({ maxCostUsd: 2.5 });
      expect((await failure(session.setBudget({ maxCostUsd: -1 }))).code).toBe("invalid_request");
    } finally {
      gated.stop();
    }
    const plain = await client.createSession(uniqueId("plain"), { agent: "mock" });
    expect((await failure(plain.setBudget({ maxTokens: 5 }))).code).toBe("not_configured");
  });
});
