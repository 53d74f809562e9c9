/**
 * Sessions moving between daemons (`exportSession`, `importSession`, `moveSession`), against two
 * real daemons and the mock agent.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  Agentplex,
  connect,
  InvalidArchiveError,
  InvalidRequestError,
  SessionAlreadyExistsError,
  SessionNotFoundError,
  type Session,
} from "../src/index.js";
import { failure, startDaemon, startProxy, uniqueId, type Daemon } from "./helpers.js";

let scratch: string;
let daemons: Daemon[] = [];
/** The two daemons: sessions start on `a`, and move to `b` (or to `a` under another id). */
let a: Agentplex;
let b: Agentplex;

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), "agentplex-sdk-moves-"));
  daemons = await Promise.all([startDaemon({ home: scratch }), startDaemon({ home: scratch })]);
  const [first, second] = daemons.map((daemon) => connect({ baseUrl: daemon.baseUrl }));
  [a, b] = await Promise.all([first!, second!]);
});
afterAll(async () => {
  await Promise.all(daemons.map((daemon) => daemon.stop()));
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** A mock session on daemon `a` that has had one turn. */
async function sessionWithATurn(env?: Record<string, string>): Promise<Session> {
  const session = await a.createSession(uniqueId("move"), { agent: "mock", directory: scratch, env });
  const turn = await session.prompt("hello from the first sandbox");
  expect(turn.stopReason).toBe("turn_ended");
  return session;
}

/** Reads a stream to its end, into one buffer. */
async function drain(stream: ReadableStream<Uint8Array>): Promise<Uint8Array<ArrayBuffer>> {
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** The types of every event of a session, in order. */
async function types(client: Agentplex, id: string): Promise<string[]> {
  const page = await client.session(id).getEvents();
  return page.events.map((event) => event.type);
}

describe("exportSession and importSession", () => {
  it("exports a session as a gzip archive and imports it under another id and in another daemon", async () => {
    const session = await sessionWithATurn();
    const transcript = await types(a, session.id);
    expect(transcript.at(-1)).toBe("turn.ended");
    let lost: string | undefined;
    const archive = await drain(await a.exportSession(session.id, { onNativeLost: (reason) => (lost = reason) }));
    expect([archive[0], archive[1]]).toEqual([0x1f, 0x8b]);
    // The mock keeps its whole session in its snapshot: nothing of it is lost.
    expect(lost).toBeUndefined();

    // The same daemon, under another id, from bytes.
    const copy = uniqueId("copy");
    const here = await a.importSession(copy, archive);
    expect(here.session).toMatchObject({ sessionId: copy, agent: "mock", eventCount: transcript.length });
    expect(here).toMatchObject({ missingSecrets: [], nativeFiles: 0 });
    expect(here.lost ?? undefined).toBeUndefined();
    expect(await types(a, copy)).toEqual(transcript);

    // The other daemon, under the same id, from a Blob; its next turn carries on.
    const there = await b.importSession(session.id, new Blob([archive]), { directory: scratch });
    expect(there.session).toMatchObject({ sessionId: session.id, eventCount: transcript.length, directory: scratch });
    expect(await types(b, session.id)).toEqual(transcript);
    const next = await b.session(session.id).prompt("hello from the second sandbox");
    expect(next.stopReason).toBe("turn_ended");
    expect(next.text).toContain("hello from the second sandbox");
    // The mock's own session came along: its second turn, not a new session's first.
    expect(next.turnId).toBe("turn_2");
    expect((await b.session(session.id).getEvents()).events).toHaveLength(transcript.length + next.events.length);
    // The session stays where it was.
    expect((await a.getSession(session.id)).info?.eventCount).toBe(transcript.length);
  });

  it("imports from the export's stream, and names the secret variables the export left out", async () => {
    const session = await sessionWithATurn({ MOCK_API_KEY: "k-1", PLAIN: "plain" });
    const streamed = await b.importSession(uniqueId("streamed"), await a.exportSession(session.id));
    expect(streamed.missingSecrets).toEqual(["MOCK_API_KEY"]);
    expect(streamed.session.eventCount).toBe((await a.getSession(session.id)).info?.eventCount);

    const archive = await drain(await a.exportSession(session.id));
    const given = await b.importSession(uniqueId("given"), archive, { env: { MOCK_API_KEY: "k-1" } });
    expect(given.missingSecrets).toEqual([]);

    // A name that is no variable's is refused before any request.
    const id = uniqueId("refused");
    const unnamed = await failure(b.importSession(id, archive, { env: { "": "x" } }));
    expect(unnamed).toBeInstanceOf(InvalidRequestError);
    expect(unnamed.status).toBe(0);
    expect((await failure(b.getSession(id))).code).toBe("session_not_found");
  });

  it("gives several secret variables in one form-encoded header, whatever their values hold", async () => {
    const env = { MOCK_API_KEY: "k-1", OTHER_TOKEN: "a&b=c d+e%20f é ✓", DB_PASSWORD: "line\nbreak" };
    const session = await sessionWithATurn({ ...env, PLAIN: "plain" });
    const archive = await drain(await a.exportSession(session.id));
    const without = await b.importSession(uniqueId("without"), archive);
    expect([...without.missingSecrets].sort()).toEqual(Object.keys(env).sort());

    const id = uniqueId("several");
    const given = await b.importSession(id, archive, { env });
    expect(given.missingSecrets).toEqual([]);
    // The agent's processes get each value as it was given (the output's lines end in "\n").
    const command = `shell printf %s/%s/%s/%s "$MOCK_API_KEY" "$OTHER_TOKEN" "$DB_PASSWORD" "$PLAIN"`;
    const shown = await b.session(id).prompt(command);
    expect(shown.stopReason).toBe("turn_ended");
    const outputs = shown.items
      .flatMap((item) => item.content)
      .flatMap((part) => (part.type === "tool_result" ? [part.output] : []));
    expect(outputs).toEqual(["k-1/a&b=c d+e%20f é ✓/line\nbreak/plain\n"]);
  });

  it("refuses a bad archive with invalid_archive, and a taken id with session_already_exists", async () => {
    const id = uniqueId("bad");
    const garbage = await failure(b.importSession(id, new TextEncoder().encode("not an archive at all")));
    expect(garbage).toBeInstanceOf(InvalidArchiveError);
    expect(garbage).toMatchObject({ code: "invalid_archive", status: 400 });

    const session = await sessionWithATurn();
    const archive = await drain(await a.exportSession(session.id));
    const truncated = await failure(b.importSession(id, archive.subarray(0, Math.floor(archive.length / 2))));
    expect(truncated.code).toBe("invalid_archive");
    const corrupted = archive.slice();
    corrupted[Math.floor(corrupted.length / 2)]! ^= 0xff;
    expect((await failure(b.importSession(id, corrupted))).code).toBe("invalid_archive");
    // Nothing was imported.
    expect((await failure(b.getSession(id))).code).toBe("session_not_found");

    const taken = await failure(a.importSession(session.id, archive));
    expect(taken).toBeInstanceOf(SessionAlreadyExistsError);
    expect(taken.status).toBe(409);
    expect((await failure(a.exportSession("no-such-session"))).code).toBe("session_not_found");
  });
});

describe("moveSession", () => {
  it("streams a session from one daemon into another", async () => {
    const session = await sessionWithATurn();
    const transcript = await types(a, session.id);
    const moved = await a.moveSession(session.id, b);
    expect(moved.session).toMatchObject({ sessionId: session.id, agent: "mock", eventCount: transcript.length });
    expect(moved.missingSecrets).toEqual([]);
    expect(await types(b, session.id)).toEqual(transcript);
    expect((await b.session(session.id).prompt("still here")).text).toContain("still here");
    // Here it stays until deleted.
    expect((await a.getSession(session.id)).info?.eventCount).toBe(transcript.length);

    // Again: the id is taken there (the daemon answers while the body streams); under another
    // id it lands, back in the first daemon too.
    const taken = await failure(a.moveSession(session.id, b));
    expect(taken).toBeInstanceOf(SessionAlreadyExistsError);
    const toId = uniqueId("moved");
    expect((await a.moveSession(session.id, b, { toId, directory: scratch })).session.sessionId).toBe(toId);
    const back = uniqueId("back");
    expect((await b.moveSession(toId, a, { toId: back })).session.eventCount).toBe(transcript.length);
    expect(await types(a, back)).toEqual(transcript);
  });

  it("sends the archive as it reads it: a chunked body, with no length known beforehand", async () => {
    const env = { SERVICE_TOKEN: "t-1", OTHER_KEY: "a&b c" };
    const session = await sessionWithATurn(env);
    const proxy = await startProxy(daemons[1]!.port);
    try {
      const through = new Agentplex({ baseUrl: proxy.baseUrl });
      const toId = uniqueId("chunked");
      const moved = await a.moveSession(session.id, through, { toId, env });
      expect(moved.missingSecrets).toEqual([]);
      const head = proxy.requests.find((request) => request.startsWith(`POST /v1/sessions/${toId}/import `));
      expect(head).toBeDefined();
      expect(head).toMatch(/^transfer-encoding: chunked$/im);
      expect(head).not.toMatch(/^content-length:/im);
      expect(head).toMatch(/^content-type: application\/gzip$/im);
      // Both variables in one header, form-encoded.
      expect(head?.match(/^x-agentplex-env:/gim)).toHaveLength(1);
      expect(head).toMatch(/^x-agentplex-env: SERVICE_TOKEN=t-1&OTHER_KEY=a%26b\+c$/im);
    } finally {
      await proxy.close();
    }
  });

  it("fails with the export's problem when the session is not there, and moves nothing", async () => {
    const id = uniqueId("missing");
    const missing = await failure(a.moveSession(id, b));
    expect(missing).toBeInstanceOf(SessionNotFoundError);
    expect((await failure(b.getSession(id))).code).toBe("session_not_found");
  });

  it("carries the secret variable given", async () => {
    const session = await sessionWithATurn({ SERVICE_TOKEN: "t-1" });
    const without = await a.moveSession(session.id, b, { toId: uniqueId("without") });
    expect(without.missingSecrets).toEqual(["SERVICE_TOKEN"]);
    const given = await a.moveSession(session.id, b, { toId: uniqueId("given"), env: { SERVICE_TOKEN: "t-1" } });
    expect(given.missingSecrets).toEqual([]);
  });
});
