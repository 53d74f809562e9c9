// The official ACP client library's remote transports (the proposal: one
// endpoint, `Acp-Connection-Id`, SSE per connection and per session, or a
// WebSocket) driving the daemon's `/acp/{agent}`: a turn, a permission, a
// question, cancel.
//
//   node --experimental-websocket remote.mjs http|ws
//
// Environment: AGENTPLEX_ENDPOINT, AGENTPLEX_TOKEN (when the daemon has one: in
// the Authorization header over HTTP, in `?access_token=` over the WebSocket, as a
// browser, which cannot set a WebSocket's headers, must send it), ACP_AGENT
// (default mock), ACP_CWD. Prints one `ok <scenario>` line each; exits 1 at the
// first failure.
import assert from "node:assert/strict";
import { turn, textOf } from "./turns.mjs";
import { client } from "@agentclientprotocol/sdk";
import { createHttpStream } from "@agentclientprotocol/sdk/experimental/http-client";
import { createWebSocketStream } from "@agentclientprotocol/sdk/experimental/ws-client";

const agent = process.env.ACP_AGENT ?? "mock";
const cwd = process.env.ACP_CWD ?? process.cwd();
const transport = process.argv[2];
const url = `${process.env.AGENTPLEX_ENDPOINT}/acp/${agent}`;
const token = process.env.AGENTPLEX_TOKEN;



try {
  const stream =
    transport === "ws"
      ? createWebSocketStream(
          url.replace(/^http/, "ws") + (token ? `?access_token=${encodeURIComponent(token)}` : ""),
        )
      : createHttpStream(url, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  const app = client()
    .onRequest("session/request_permission", async () => ({
      outcome: { outcome: "selected", optionId: "once" },
    }))
    .onRequest("elicitation/create", async () => ({ action: "accept", content: { answer: "Red" } }));
  await app.connectWith(stream, async (cx) => {
    const init = await cx.request("initialize", {
      protocolVersion: 1,
      clientCapabilities: { elicitation: { form: {} } },
    });
    assert.equal(init.protocolVersion, 1);
    const session = await cx.buildSession(cwd).start();
    let t = await turn(session, "hello");
    assert.equal(t.stopReason, "end_turn");
    assert.equal(textOf(t.updates, "agent_message_chunk"), "hello");
    console.log("ok turn");
    t = await turn(session, "permission ls");
    assert.equal(textOf(t.updates, "agent_message_chunk"), "Permission granted once: I may run `ls`.");
    console.log("ok permission");
    t = await turn(session, "question");
    assert.equal(textOf(t.updates, "agent_message_chunk"), "You answered: Red.");
    console.log("ok question");
    const slow = session.prompt("slow 100");
    await session.nextUpdate();
    await cx.notify("session/cancel", { sessionId: session.sessionId });
    let stop;
    while ((stop = await session.nextUpdate()).kind !== "stop") {}
    assert.equal(stop.stopReason, "cancelled");
    await slow;
    console.log("ok cancel");
    const listed = await cx.request("session/list", {});
    assert.ok(listed.sessions.some((s) => s.sessionId === session.sessionId));
    console.log("ok list");
    session.dispose();
  });
} catch (error) {
  console.error(`FAILED: ${error.stack ?? error}`);
  process.exit(1);
}
process.exit(0);
