/** The SSE parser, and the event iterator: replay, live events, ends, aborts, reconnects. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, Agentplex, AgentplexError, type UniversalEvent } from "../src/index.js";
import { parseSse } from "../src/sse.js";
import { collect, startDaemon, startProxy, uniqueId, type Daemon, type Proxy } from "./helpers.js";

function streamOf(chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

describe("parseSse", () => {
  it("parses fields, comments and every line ending, across chunk boundaries", async () => {
    const messages = await collect(
      parseSse(
        streamOf([
          ": keep-alive\n\n",
          "id: 1\ndata: {\"a\":1}\n\n",
          "id: 2\r\nevent: custom\r\ndata: line one\r\ndata:line two\r\n\r",
          "\nid: 3\rdata: x\r\r",
          "data: no id\n",
          "\n",
          "data: incomplete at the end\n",
        ]),
      ),
    );
    expect(messages).toEqual([
      { id: "1", event: "message", data: '{"a":1}' },
      { id: "2", event: "custom", data: "line one\nline two" },
      { id: "3", event: "message", data: "x" },
      { event: "message", data: "no id" },
    ]);
  });

  it("handles a message split byte by byte, multi-byte characters included", async () => {
    const text = "id: 7\ndata: héllo ✓\n\n";
    const bytes = new TextEncoder().encode(text);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const byte of bytes) controller.enqueue(new Uint8Array([byte]));
        controller.close();
      },
    });
    expect(await collect(parseSse(stream))).toEqual([{ id: "7", event: "message", data: "héllo ✓" }]);
  });
});

let daemon: Daemon;
let client: Agentplex;

beforeAll(async () => {
  daemon = await startDaemon();
  client = await connect({ baseUrl: daemon.baseUrl });
});
afterAll(() => daemon?.stop());

function sequences(events: UniversalEvent[]): number[] {
  return events.map((e) => e.sequence);
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

describe("session.events()", () => {
  it("replays an ended session and ends after session.ended", async () => {
    const session = await client.createSession(uniqueId("ended"), { agent: "mock" });
    await session.prompt("hello");
    await session.prompt("end");
    const events = await collect(session.events());
    expect(sequences(events)).toEqual(range(1, events.length));
    expect(events[0]!.type).toBe("session.started");
    expect(events[events.length - 1]!.type).toBe("session.ended");

    const tail = await collect(session.events({ offset: 5 }));
    expect(sequences(tail)).toEqual(range(6, events.length));
    // At or past the end of an ended session: ends at once, with nothing.
    expect(await collect(session.events({ offset: events.length }))).toEqual([]);
    expect(await collect(session.events({ offset: events.length + 10 }))).toEqual([]);
  });

  it("streams live events and stops on break", async () => {
    const session = await client.createSession(uniqueId("live"), { agent: "mock" });
    const iterator = session.events();
    const seen: UniversalEvent[] = [];
    const done = (async () => {
      for await (const event of iterator) {
        seen.push(event);
        if (event.type === "turn.ended") break;
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 100));
    await session.send("hello live");
    await done;
    expect(sequences(seen)).toEqual(range(1, seen.length));
    const text = seen.flatMap((e) => (e.type === "item.delta" ? [e.data.delta] : [])).join("");
    expect(text).toBe("hello live");
  });

  it("includes raw payloads with includeRaw", async () => {
    const session = await client.createSession(uniqueId("raw"), { agent: "mock" });
    await session.send("unparsed");
    const events = await collect(session.events({ includeRaw: true }), (e) => e.type === "turn.ended");
    expect(events.find((e) => e.type === "agent.unparsed")!.raw).toEqual({ raw: "mock" });
  });

  it("rejects with the abort reason when the signal fires", async () => {
    const session = await client.createSession(uniqueId("abort"), { agent: "mock" });
    const controller = new AbortController();
    const seen: UniversalEvent[] = [];
    const run = (async () => {
      for await (const event of session.events({ signal: controller.signal })) seen.push(event);
    })();
    setTimeout(() => controller.abort(), 200);
    await expect(run).rejects.toMatchObject({ name: "AbortError" });
    expect(seen.map((e) => e.type)).toEqual(["session.started"]);
    const reason = new Error("mine");
    const again = new AbortController();
    again.abort(reason);
    await expect(collect(session.events({ signal: again.signal }))).rejects.toBe(reason);
  });

  it("throws session_not_found at once for an unknown session", async () => {
    const error = await collect(client.session("no-such-session").events()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentplexError);
    expect(error).toMatchObject({ code: "session_not_found", status: 404 });
  });
});

describe("reconnects", () => {
  let proxy: Proxy;
  beforeAll(async () => {
    proxy = await startProxy(daemon.port);
  });
  afterAll(() => proxy?.close());

  it("resumes with Last-Event-ID after dropped connections, without duplicates or gaps", async () => {
    const viaProxy = new Agentplex({ baseUrl: proxy.baseUrl });
    const session = await viaProxy.createSession(uniqueId("drop"), { agent: "mock" });
    const before = proxy.requests.length;
    const sseRequests = () => proxy.requests.slice(before).filter((r) => r.includes("/events/sse"));
    const events: UniversalEvent[] = [];
    const droppedOn = new Set<number>();
    for await (const event of session.events({ retryDelayMs: 20 })) {
      events.push(event);
      // The first connection is live: start a turn that streams a delta every 100 ms.
      if (event.type === "session.started") await session.send("slow 12");
      // Cut the first and the second connection in the middle of the turn.
      const connection = sseRequests().length;
      if (event.type === "item.delta" && connection <= 2 && !droppedOn.has(connection)) {
        droppedOn.add(connection);
        proxy.dropAll();
      }
      if (event.type === "turn.ended") break;
    }
    expect(sequences(events)).toEqual(range(1, events.length));
    const text = events.flatMap((e) => (e.type === "item.delta" ? [e.data.delta] : [])).join("");
    expect(text).toBe(range(1, 12).map((i) => `tick ${i}/12\n`).join(""));

    const sse = sseRequests();
    expect(sse.length).toBe(3);
    expect(sse[0]).not.toMatch(/last-event-id/i);
    const resumedAt = sse.slice(1).map((r) => Number(/last-event-id: (\d+)/i.exec(r)?.[1]));
    // Each reconnect resumes after the last event yielded, and the second one further on.
    expect(resumedAt[0]).toBeGreaterThan(1);
    expect(resumedAt[1]).toBeGreaterThan(resumedAt[0]!);
    for (const seq of resumedAt) expect(events.some((e) => e.sequence === seq)).toBe(true);
  });

  it("reopens a connection that stays silent longer than idleTimeoutMs", async () => {
    const viaProxy = new Agentplex({ baseUrl: proxy.baseUrl });
    const session = await viaProxy.createSession(uniqueId("idle"), { agent: "mock" });
    const before = proxy.requests.length;
    setTimeout(() => void session.send("hello idle"), 700);
    const events = await collect(
      session.events({ idleTimeoutMs: 150, retryDelayMs: 20 }),
      (e) => e.type === "turn.ended",
    );
    expect(sequences(events)).toEqual(range(1, events.length));
    const reconnects = proxy.requests.slice(before).filter((r) => /events\/sse.*\r\n[\s\S]*last-event-id: 1\b/i.test(r));
    expect(reconnects.length).toBeGreaterThanOrEqual(2);
  });

  it("fills a gap in the stream from the events page", async () => {
    // A fetch that loses the SSE message of sequence 4 (as a faulty proxy might).
    const lossyFetch: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (!String(input).includes("/events/sse")) return response;
      let buffer = "";
      const decoder = new TextDecoder();
      const encoder = new TextEncoder();
      const body = response.body!.pipeThrough(
        new TransformStream<Uint8Array, Uint8Array>({
          transform(chunk, controller) {
            buffer += decoder.decode(chunk, { stream: true });
            let end: number;
            while ((end = buffer.indexOf("\n\n")) !== -1) {
              const message = buffer.slice(0, end + 2);
              buffer = buffer.slice(end + 2);
              if (!message.startsWith("id: 4\n")) controller.enqueue(encoder.encode(message));
            }
          },
        }),
      );
      return new Response(body, { status: response.status, headers: response.headers });
    };
    const lossy = new Agentplex({ baseUrl: daemon.baseUrl, fetch: lossyFetch });
    const session = await lossy.createSession(uniqueId("gap"), { agent: "mock" });
    await session.send("hello gap");
    const events = await collect(session.events(), (e) => e.type === "turn.ended");
    expect(sequences(events)).toEqual(range(1, events.length));
    expect(events[3]!.sequence).toBe(4);
  });

  it("keeps retrying through a short outage", async () => {
    const flaky = await startProxy(daemon.port);
    try {
      const session = await new Agentplex({ baseUrl: flaky.baseUrl }).createSession(uniqueId("outage"), {
        agent: "mock",
      });
      const events: UniversalEvent[] = [];
      for await (const event of session.events({ retryDelayMs: 20 })) {
        events.push(event);
        if (event.type === "session.started") {
          // Down for 300 ms (connections refused), while a turn runs on the daemon.
          await flaky.close();
          await client.session(session.id).send("slow 3"); // straight to the daemon
          setTimeout(() => void flaky.reopen(), 300);
        }
        if (event.type === "turn.ended") break;
      }
      expect(sequences(events)).toEqual(range(1, events.length));
      expect(events[events.length - 1]!.type).toBe("turn.ended");
    } finally {
      await flaky.close();
    }
  });

  it("gives up with stream_error when the daemon stays unreachable", async () => {
    const gone = await startProxy(daemon.port);
    const viaGone = new Agentplex({ baseUrl: gone.baseUrl });
    const session = await viaGone.createSession(uniqueId("gone"), { agent: "mock" });
    const seen: UniversalEvent[] = [];
    const run = (async () => {
      for await (const event of session.events({ maxRetries: 2, retryDelayMs: 10 })) {
        seen.push(event);
        await gone.close(); // drop the connection and refuse new ones
      }
    })();
    const error = await run.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentplexError);
    expect(error).toMatchObject({ code: "stream_error", sessionId: session.id });
    expect(seen.map((e) => e.sequence)).toEqual([1]);
  });
});
