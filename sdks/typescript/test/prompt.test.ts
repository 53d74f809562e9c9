/** session.prompt() and the permission and question handlers. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  connect,
  Agentplex,
  AgentplexError,
  type PermissionEventData,
  type QuestionEventData,
  type UniversalEvent,
} from "../src/index.js";
import { collect, startDaemon, uniqueId, type Daemon } from "./helpers.js";

let daemon: Daemon;
let client: Agentplex;

beforeAll(async () => {
  daemon = await startDaemon();
  client = await connect({ baseUrl: daemon.baseUrl });
});
afterAll(() => daemon?.stop());

const newSession = (prefix: string) => client.createSession(uniqueId(prefix), { agent: "mock" });

describe("session.prompt()", () => {
  it("resolves with the turn's events, completed items, text and usage", async () => {
    const session = await newSession("prompt");
    const seen: UniversalEvent[] = [];
    const result = await session.prompt("hello sandbox", { onEvent: (e) => void seen.push(e) });
    expect(result.text).toBe("hello sandbox");
    expect(result.stopReason).toBe("turn_ended");
    expect(result.turnId).toBe("turn_1");
    expect(result.usage).toEqual({ input_tokens: 2, output_tokens: 2 });
    expect(result.events[0]!.type).toBe("turn.started");
    expect(result.events[result.events.length - 1]!.type).toBe("turn.ended");
    expect(result.lastSequence).toBe(result.events[result.events.length - 1]!.sequence);
    expect(result.items.map((i) => [i.role, i.status])).toEqual([
      ["user", "completed"],
      ["assistant", "completed"],
    ]);
    expect(result.events.filter((e) => e.type === "item.delta").length).toBeGreaterThanOrEqual(3);
    expect(seen).toEqual(result.events);

    const second = await session.prompt([{ type: "text", text: "echo second turn" }]);
    expect(second.text).toBe("second turn");
    expect(second.turnId).toBe("turn_2");
    expect(second.events[0]!.sequence).toBe(result.lastSequence + 1);
  });

  it("includes raw payloads with includeRaw", async () => {
    const session = await newSession("raw");
    const plain = await session.prompt("unparsed");
    expect(plain.events.find((e) => e.type === "agent.unparsed")!.raw).toBeUndefined();
    const raw = await session.prompt("unparsed", { includeRaw: true });
    expect(raw.events.find((e) => e.type === "agent.unparsed")!.raw).toEqual({ raw: "mock" });
  });

  it("answers a permission request with the handler's reply", async () => {
    const session = await newSession("perm");
    const requests: PermissionEventData[] = [];
    const result = await session.prompt("permission ls -la", {
      onPermission: (request) => {
        requests.push(request);
        return "once";
      },
    });
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ action: "command_execution", metadata: { command: "ls -la" } });
    expect(result.text).toBe("Permission granted once: I may run `ls -la`.");
    expect(result.events.map((e) => e.type)).toContain("permission.resolved");
  });

  it("answers and rejects questions with the handler's return value", async () => {
    const session = await newSession("question");
    const questions: QuestionEventData[] = [];
    const onQuestion = (q: QuestionEventData) => {
      questions.push(q);
      return [["Red"]];
    };
    expect((await session.prompt("question", { onQuestion })).text).toBe("You answered: Red.");
    expect(questions[0]).toMatchObject({ prompt: "Choose a color", options: ["Red", "Blue"] });
    // A flat list answers the one prompt with several options.
    expect((await session.prompt("question", { onQuestion: () => ["Red", "Blue"] })).text).toBe(
      "You answered: Red, Blue.",
    );
    expect((await session.prompt("question", { onQuestion: () => "reject" })).text).toBe("You declined to answer.");
  });

  it("uses the session's handlers when the call gives none, until removed", async () => {
    const session = await newSession("session-handlers");
    const off = session.onPermission(async () => "reject" as const);
    session.onQuestion(() => [["Blue"]]);
    expect((await session.prompt("permission")).text).toBe("Permission rejected: I did not run `echo mock`.");
    expect((await session.prompt("question")).text).toBe("You answered: Blue.");
    off();
    // Without a handler the turn waits for a reply from elsewhere.
    const result = await session.prompt("permission", {
      onEvent: (event) => {
        if (event.type === "permission.requested") {
          setTimeout(() => void session.replyPermission(event.data.permission_id, "always"), 50);
        }
      },
    });
    expect(result.text).toContain("Permission granted for this session");
  });

  it("asks several listeners in order; the first that replies answers, the rest are not asked", async () => {
    const session = await newSession("listeners");
    const calls: string[] = [];
    const watcher = (p: { permission_id: string }) => {
      calls.push(`watch ${p.permission_id}`);
    };
    const rejecter = () => {
      calls.push("reject");
      return "reject" as const;
    };
    const never = () => {
      calls.push("never");
      return "always" as const;
    };
    session.on("permission", watcher).on("permission", rejecter).on("permission", never);
    session.on("permission", watcher); // once only
    expect((await session.prompt("permission")).text).toBe("Permission rejected: I did not run `echo mock`.");
    expect(calls).toEqual([expect.stringMatching(/^watch /), "reject"]);

    // The call's own handler comes first.
    calls.length = 0;
    expect((await session.prompt("permission", { onPermission: () => "once" })).text).toContain("granted");
    expect(calls).toEqual([]);

    // Only watchers left: nobody replies, the request stays pending for the caller.
    session.off("permission", rejecter).off("permission", never);
    calls.length = 0;
    const result = await session.prompt("permission", {
      onEvent: (event) => {
        if (event.type === "permission.requested") {
          setTimeout(() => void session.replyPermission(event.data.permission_id, "once"), 50);
        }
      },
    });
    expect(result.text).toContain("granted");
    expect(calls).toHaveLength(1);

    // Questions too; a listener's error reaches the caller.
    session.on("question", () => undefined).on("question", () => [["Red"]]);
    expect((await session.prompt("question")).text).toBe("You answered: Red.");
    const boom = new Error("listener failed");
    const other = await newSession("listeners-throw");
    other.on("question", () => {
      throw boom;
    });
    await expect(other.prompt("question")).rejects.toBe(boom);
  });

  it("returns only its own turn when the message was queued", async () => {
    const session = await newSession("queued");
    await session.send("slow 3");
    const result = await session.prompt("hello after");
    expect(result.turnId).toBe("turn_2");
    expect(result.text).toBe("hello after");
  });

  it("rejects with session_ended when the session ends before its queued turn starts", async () => {
    const session = await newSession("dropped");
    await session.send("slow 30");
    // Caught at once: it may reject while terminate() is still awaited.
    const pending = session.prompt("never runs").catch((e: unknown) => e);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await session.terminate();
    const error = await pending;
    expect(error).toBeInstanceOf(AgentplexError);
    expect(error).toMatchObject({ code: "session_ended", sessionId: session.id });
  });

  it("stops waiting when aborted (the turn goes on) and cancel ends the turn", async () => {
    const session = await newSession("abort");
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    await expect(session.prompt("slow 50", { signal: controller.signal })).rejects.toMatchObject({
      name: "AbortError",
    });
    expect((await session.refresh()).status).toBe("running");
    await session.cancel();
    const events = await collect(session.events(), (e) => e.type === "turn.ended");
    expect(events[events.length - 1]!.data).toMatchObject({ metadata: { cancelled: true } });
  });

  it("ends with the session: `end`, then session_ended", async () => {
    const session = await newSession("end");
    const result = await session.prompt("end");
    expect(result.stopReason).toBe("turn_ended");
    const error = await session.prompt("hello").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentplexError);
    expect(error).toMatchObject({ code: "session_ended", status: 409 });
  });
});

describe("session.stream()", () => {
  it("yields one turn's events as they come, answering its requests, and ends with the turn", async () => {
    const session = await newSession("stream");
    const types: string[] = [];
    for await (const event of session.stream("permission ls", { onPermission: () => "once" })) types.push(event.type);
    expect(types[0]).toBe("turn.started");
    expect(types[types.length - 1]).toBe("turn.ended");
    expect(types).toContain("permission.requested");
    expect(types).toContain("permission.resolved");
    // The session goes on: the next turn is a stream of its own.
    const next = await collect(session.stream("hello again"));
    expect(next[0]!.type).toBe("turn.started");
    expect(next[next.length - 1]!.type).toBe("turn.ended");
    expect(next[0]!.sequence).toBeGreaterThan(types.length);
  });
});

describe("handlers while iterating events()", () => {
  it("replies to live requests, not to ones resolved before the iteration", async () => {
    const session = await newSession("iterate");
    await session.prompt("question", { onQuestion: () => [["Red"]] });
    await session.prompt("permission", { onPermission: () => "once" });

    const asked: string[] = [];
    const iterator = session.events({
      onQuestion: (q) => {
        asked.push(q.question_id);
        return "reject";
      },
      onPermission: (p) => {
        asked.push(p.permission_id);
        return "always";
      },
    });
    const done = collect(iterator, (e) => e.type === "turn.ended" && e.data.turn_id === "turn_4");
    await session.send("permission");
    await session.send("question");
    const events = await done;
    expect(asked).toEqual(["mock_3_permission", "mock_4_question"]);
    const resolved = events.filter((e) => e.type === "permission.resolved" || e.type === "question.resolved");
    expect(resolved.map((e) => e.data.status)).toEqual(["answered", "accept", "accept_for_session", "rejected"]);
  });

  it("leaves a request pending when the handler returns nothing", async () => {
    const session = await newSession("pending");
    await session.send("question");
    const events = await collect(
      session.events({ onQuestion: () => undefined }),
      (e) => e.type === "question.requested",
    );
    const question = events[events.length - 1]!;
    expect((await session.refresh()).status).toBe("awaiting_input");
    expect(question.type === "question.requested" && question.data.question_id).toBe("mock_1_question");
    await session.rejectQuestion("mock_1_question");
  });
});
