// The reference project's TypeScript SDK (`sandbox-agent` 0.4.2 on npm, which
// speaks only ACP over HTTP at /v1/acp/{server_id}) driving the daemon unchanged:
// a session, a turn, a permission answered through the SDK, its mode, model and
// thought level set through the SDK, events it kept.
//
// Environment: AGENTPLEX_ENDPOINT, AGENTPLEX_TOKEN, ACP_AGENT (default mock),
// ACP_CWD. Prints one `ok <scenario>` line each; exits 1 at the first failure.
import assert from "node:assert/strict";
import { SandboxAgent } from "sandbox-agent";

const agent = process.env.ACP_AGENT ?? "mock";
const cwd = process.env.ACP_CWD ?? process.cwd();

const textOf = (payloads, kind) =>
  payloads
    .filter((p) => p.method === "session/update" && p.params.update.sessionUpdate === kind)
    .map((p) => p.params.update.content.text)
    .join("");

/** The SDK hands events to listeners after storing them, asynchronously: a
 * prompt's answer can come first. Waits (2 s at most) for `text` to be seen. */
async function eventually(payloads, kind, text) {
  for (let i = 0; i < 200 && textOf(payloads, kind) !== text; i++) {
    await new Promise((done) => setTimeout(done, 10));
  }
  assert.equal(textOf(payloads, kind), text, JSON.stringify(payloads));
}

try {
  const sdk = await SandboxAgent.connect({
    baseUrl: process.env.AGENTPLEX_ENDPOINT,
    token: process.env.AGENTPLEX_TOKEN || undefined,
  });
  const session = await sdk.createSession({ agent, cwd });
  const payloads = [];
  session.onEvent((event) => {
    if (event.sender === "agent") payloads.push(event.payload);
  });
  let response = await session.prompt([{ type: "text", text: "hello" }]);
  assert.equal(response.stopReason, "end_turn");
  await eventually(payloads, "agent_message_chunk", "hello");
  console.log("ok turn");

  session.onPermissionRequest((request) => {
    void session.respondPermission(request.id, "once");
  });
  payloads.length = 0;
  response = await session.prompt([{ type: "text", text: "permission ls" }]);
  assert.equal(response.stopReason, "end_turn");
  await eventually(payloads, "agent_message_chunk", "Permission granted once: I may run `ls`.");
  console.log("ok permission");

  // Its mode, model and thought level setters find our modes and options.
  await session.setMode("plan");
  assert.equal((await session.getModes())?.currentModeId, "plan");
  await session.setMode("build");
  await session.setModel("mock-large");
  await session.setThoughtLevel("high");
  const levels = (await session.getConfigOptions()).find((o) => o.category === "thought_level");
  assert.equal(levels?.currentValue, "high", JSON.stringify(levels));
  payloads.length = 0;
  response = await session.prompt([{ type: "text", text: "settings" }]);
  assert.equal(response.stopReason, "end_turn");
  const settings = "Agent mode build, permission mode default, model mock-large, variant high.";
  await eventually(payloads, "agent_message_chunk", settings);
  console.log("ok mode, model and thought level");

  // The session is the daemon's: its REST API lists it.
  const listed = await fetch(`${process.env.AGENTPLEX_ENDPOINT}/v1/sessions`, {
    headers: process.env.AGENTPLEX_TOKEN ? { authorization: `Bearer ${process.env.AGENTPLEX_TOKEN}` } : {},
  }).then((r) => r.json());
  const record = await sdk.getSession?.(session.id);
  const agentSessionId = record?.agentSessionId ?? session.agentSessionId ?? session.toRecord().agentSessionId;
  assert.ok(listed.sessions.some((s) => s.sessionId === agentSessionId), JSON.stringify(listed));
  console.log("ok listed over REST");
  await sdk.destroySession(session.id);
  await sdk.dispose?.();
} catch (error) {
  console.error(`FAILED: ${error.stack ?? error}`);
  process.exit(1);
}
process.exit(0);
