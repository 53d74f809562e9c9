// The official ACP client library (@agentclientprotocol/sdk) driving
// `agentplex acp --agent <agent>` over stdio, as an editor would.
//
//   node stdio.mjs scenarios        a turn, a thought, a tool call, a permission
//                                    allowed and one rejected, a question, cancel
//                                    mid-turn, list; prints `session <id>` last
//   node stdio.mjs load <id>        loads that session (after a daemon restart):
//                                    the replay comes before the answer
//   node stdio.mjs modes            a session's modes: listed when it is made,
//                                    changed with session/set_mode and
//                                    session/set_config_option (in the answers,
//                                    not told back), in force from the next
//                                    prompt; a change over REST told as updates;
//                                    the same for the model (session/set_model)
//                                    and its thought level
//   node stdio.mjs conformance      a real agent (ACP_AGENT) against the scripted
//                                    model server: a turn, a tool call (bypass), a
//                                    permission allowed and one rejected (default;
//                                    the test checks the files), then a turn over
//                                    HTTP (the remote transport, /acp/{agent})
//
// Environment: AGENTPLEX_BIN (the binary), AGENTPLEX_ENDPOINT and AGENTPLEX_TOKEN
// (the daemon), ACP_AGENT (default mock), ACP_CWD (the sessions' directory).
// Prints one `ok <scenario>` line per scenario; exits 1 at the first failure.
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import assert from "node:assert/strict";
import { turn, textOf } from "./turns.mjs";
import { client, ndJsonStream } from "@agentclientprotocol/sdk";
import { createHttpStream } from "@agentclientprotocol/sdk/experimental/http-client";

const agent = process.env.ACP_AGENT ?? "mock";
const cwd = process.env.ACP_CWD ?? process.cwd();

/** Answers the agent's permission requests and questions as the scenario wants. */
const answers = { permission: "once", question: "Blue" };
/** How many permission requests came. */
let permissionsAsked = 0;

function connect(onUpdate, extraArgs = []) {
  const child = spawn(
    process.env.AGENTPLEX_BIN,
    ["acp", "--agent", agent, "--endpoint", process.env.AGENTPLEX_ENDPOINT, ...extraArgs],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  const stream = ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
  const app = client()
    .onRequest("session/request_permission", async ({ params }) => {
      permissionsAsked += 1;
      const option = params.options.find((o) => o.optionId === answers.permission);
      assert.ok(option, `an option ${answers.permission} among ${JSON.stringify(params.options)}`);
      return { outcome: { outcome: "selected", optionId: option.optionId } };
    })
    .onRequest("elicitation/create", async ({ params }) => {
      assert.equal(params.mode, "form");
      return { action: "accept", content: { answer: answers.question } };
    });
  if (onUpdate) app.onNotification("session/update", ({ params }) => onUpdate(params));
  return { child, stream, app };
}



async function initialize(cx) {
  const init = await cx.request("initialize", {
    protocolVersion: 1,
    clientCapabilities: { elicitation: { form: {} } },
    clientInfo: { name: "agentplex-acp-test", version: "1" },
  });
  assert.equal(init.protocolVersion, 1);
  assert.equal(init.agentCapabilities.loadSession, true);
  assert.ok(init.agentCapabilities.sessionCapabilities.list);
  return init;
}

async function scenarios() {
  const { child, stream, app } = connect();
  let sessionId;
  await app.connectWith(stream, async (cx) => {
    await initialize(cx);
    console.log("ok initialize");
    const session = await cx.buildSession(cwd).start();
    sessionId = session.sessionId;

    let t = await turn(session, "hello");
    assert.equal(t.stopReason, "end_turn");
    assert.equal(textOf(t.updates, "agent_message_chunk"), "hello");
    console.log("ok turn");

    t = await turn(session, "think cats");
    assert.match(textOf(t.updates, "agent_thought_chunk"), /think about cats/);
    assert.equal(textOf(t.updates, "agent_message_chunk"), "I thought about cats, and this is my answer.");
    console.log("ok thought");

    t = await turn(session, "tool");
    const call = t.updates.find((u) => u.sessionUpdate === "tool_call");
    assert.ok(call, JSON.stringify(t.updates));
    assert.equal(call.rawInput.query, "example");
    const result = t.updates.find((u) => u.sessionUpdate === "tool_call_update" && u.status);
    assert.equal(result.toolCallId, call.toolCallId);
    assert.equal(result.status, "failed");
    console.log("ok tool call");

    answers.permission = "once";
    t = await turn(session, "permission ls -la");
    assert.equal(textOf(t.updates, "agent_message_chunk"), "Permission granted once: I may run `ls -la`.");
    console.log("ok permission allowed");

    answers.permission = "reject";
    t = await turn(session, "permission rm -rf /tmp/nothing");
    assert.equal(textOf(t.updates, "agent_message_chunk"), "Permission rejected: I did not run `rm -rf /tmp/nothing`.");
    console.log("ok permission rejected");

    t = await turn(session, "question");
    assert.equal(textOf(t.updates, "agent_message_chunk"), "You answered: Blue.");
    console.log("ok question");

    const slow = session.prompt("slow 100");
    const first = await session.nextUpdate();
    assert.equal(first.kind, "session_update");
    await cx.notify("session/cancel", { sessionId });
    let stop;
    while ((stop = await session.nextUpdate()).kind !== "stop") {}
    assert.equal(stop.stopReason, "cancelled");
    await slow;
    console.log("ok cancel");

    const listed = await cx.request("session/list", { cwd });
    assert.ok(listed.sessions.some((s) => s.sessionId === sessionId), JSON.stringify(listed));
    console.log("ok list");

    await assert.rejects(cx.request("session/prompt", { sessionId: "nope", prompt: [{ type: "text", text: "x" }] }),
      (e) => e.code === -32002);
    await assert.rejects(cx.request("session/fork", { sessionId }), (e) => e.code === -32601);
    await assert.rejects(cx.request("session/new", { cwd: "relative/path", mcpServers: [] }), (e) => e.code === -32602);
    console.log("ok errors");
    session.dispose();
  });
  child.stdin.end();
  await new Promise((done) => child.on("exit", done));
  console.log(`session ${sessionId}`);
}

async function load(sessionId) {
  const replayed = [];
  const { child, stream, app } = connect((params) => {
    if (params.sessionId === sessionId) replayed.push(params.update);
  });
  await app.connectWith(stream, async (cx) => {
    await initialize(cx);
    await cx.request("session/load", { sessionId, cwd, mcpServers: [] });
    const users = replayed.filter((u) => u.sessionUpdate === "user_message_chunk").map((u) => u.content.text);
    assert.deepEqual(users.slice(0, 2), ["hello", "think cats"], JSON.stringify(replayed.slice(0, 10)));
    assert.ok(textOf(replayed, "agent_message_chunk").startsWith("hello"));
    console.log("ok load");
    // The loaded session takes prompts.
    const answer = await cx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "echo again" }] });
    assert.equal(answer.stopReason, "end_turn");
    console.log("ok prompt after load");
  });
  child.stdin.end();
  await new Promise((done) => child.on("exit", done));
}

async function modes() {
  const { child, stream, app } = connect();
  await app.connectWith(stream, async (cx) => {
    await initialize(cx);
    const session = await cx.buildSession(cwd).start();
    const { sessionId } = session;
    const created = session.newSessionResponse;
    assert.equal(created.modes.currentModeId, "build");
    assert.deepEqual(created.modes.availableModes.map((m) => m.id), ["build", "plan"]);
    const option = (options, id) => options.find((o) => o.id === id);
    assert.equal(option(created.configOptions, "mode").currentValue, "build");
    assert.equal(option(created.configOptions, "permission_mode").currentValue, "default");
    console.log("ok modes listed");

    // A change the client makes is in the answer and not told back (an update
    // could reach it after the answer to a later change); one made elsewhere is
    // told as updates to every client following the session.
    const told = async (kind) => {
      const seen = [];
      for (;;) {
        const message = await session.nextUpdate();
        assert.equal(message.kind, "session_update", JSON.stringify(seen));
        seen.push(message.update);
        if (message.update.sessionUpdate === kind) return seen;
      }
    };
    const say = async (text) => {
      const t = await turn(session, text);
      assert.equal(t.stopReason, "end_turn");
      const echoed = t.updates.filter((u) => /^(current_mode|config_option)_update$/.test(u.sessionUpdate));
      assert.deepEqual(echoed, [], "the client's own change told back");
      return textOf(t.updates, "agent_message_chunk");
    };
    assert.deepEqual(await cx.request("session/set_mode", { sessionId, modeId: "plan" }), {});
    assert.equal(await say("shell echo planned"), "Plan mode: I would run `echo planned`.");
    console.log("ok set_mode");

    const set = await cx.request("session/set_config_option", { sessionId, configId: "mode", value: "build" });
    assert.equal(option(set.configOptions, "mode").currentValue, "build");
    assert.equal(option(set.configOptions, "permission_mode").currentValue, "default");
    assert.notEqual(await say("shell echo built"), "Plan mode: I would run `echo built`.");
    console.log("ok set_config_option");

    const asked = await cx.request("session/set_config_option", { sessionId, configId: "permission_mode", value: "plan" });
    assert.equal(option(asked.configOptions, "mode").currentValue, "build");
    assert.equal(option(asked.configOptions, "permission_mode").currentValue, "plan");
    assert.equal(await say("shell echo asked"), "Plan mode: I would run `echo asked`.");

    // Changed over REST: told.
    const token = process.env.AGENTPLEX_TOKEN;
    const rest = await fetch(`${process.env.AGENTPLEX_ENDPOINT}/v1/sessions/${sessionId}/modes`, {
      method: "PUT",
      headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify({ agentMode: "plan" }),
    });
    assert.equal(rest.status, 200, await rest.text());
    let updates = await told("config_option_update");
    assert.equal(updates.find((u) => u.sessionUpdate === "current_mode_update")?.currentModeId, "plan");
    const options = updates.at(-1).configOptions;
    assert.equal(option(options, "mode").currentValue, "plan");
    assert.equal(option(options, "permission_mode").currentValue, "plan");
    console.log("ok mode updates");

    await assert.rejects(cx.request("session/set_mode", { sessionId, modeId: "architect" }),
      (e) => e.code === -32602 && /no mode "architect"/.test(e.message));
    await assert.rejects(cx.request("session/set_config_option", { sessionId, configId: "colour", value: "red" }),
      (e) => e.code === -32602);
    await assert.rejects(cx.request("session/set_config_option", { sessionId, configId: "permission_mode", value: "sometimes" }),
      (e) => e.code === -32602);
    await assert.rejects(cx.request("session/set_mode", { sessionId: "nope", modeId: "plan" }),
      (e) => e.code === -32002);
    console.log("ok mode errors");

    // The model: listed (the agent's default while the session names none),
    // changed with session/set_model and with its config option.
    assert.equal(created.models.currentModelId, "mock");
    assert.deepEqual(created.models.availableModels.map((m) => m.modelId), ["mock", "mock-large"]);
    assert.equal(option(created.configOptions, "model").category, "model");
    assert.equal(option(created.configOptions, "model").currentValue, "mock");
    assert.deepEqual(await cx.request("session/set_model", { sessionId, modelId: "mock-large" }), {});
    assert.match(await say("settings"), /^Agent mode plan, permission mode plan, model mock-large\.$/);
    const back = await cx.request("session/set_config_option", { sessionId, configId: "model", value: "mock" });
    assert.equal(option(back.configOptions, "model").currentValue, "mock");
    assert.match(await say("settings"), /, model mock\.$/);
    await assert.rejects(cx.request("session/set_model", { sessionId, modelId: " mock" }),
      (e) => e.code === -32602 && /invalid model/.test(e.message));
    await assert.rejects(cx.request("session/set_model", { sessionId, modelId: "default" }),
      (e) => e.code === -32602);
    console.log("ok set_model");

    // The model's thought level: an option while the model has levels (the
    // agent's own while the session names none), in force from the next prompt.
    assert.equal(option(back.configOptions, "thought_level"), undefined);
    const large = await cx.request("session/set_config_option", { sessionId, configId: "model", value: "mock-large" });
    const levels = option(large.configOptions, "thought_level");
    assert.equal(levels.category, "thought_level");
    assert.equal(levels.currentValue, "default");
    assert.deepEqual(levels.options.map((o) => o.value), ["default", "low", "medium", "high"]);
    assert.equal(levels.options[0].name, "Default (medium)");
    const high = await cx.request("session/set_config_option", { sessionId, configId: "thought_level", value: "high" });
    assert.equal(option(high.configOptions, "thought_level").currentValue, "high");
    assert.match(await say("settings"), /, model mock-large, variant high\.$/);
    await assert.rejects(cx.request("session/set_config_option", { sessionId, configId: "thought_level", value: "default" }),
      (e) => e.code === -32602 && /once a variant is named/.test(e.message));
    console.log("ok thought level");
    console.log(`session ${sessionId}`);
    session.dispose();
  });
  child.stdin.end();
  await new Promise((done) => child.on("exit", done));
}

/** Runs `op` on a fresh connection and session, the command closed after. */
async function withSession(extraArgs, op) {
  const { child, stream, app } = connect(undefined, extraArgs);
  await app.connectWith(stream, async (cx) => {
    await initialize(cx);
    const session = await cx.buildSession(cwd).start();
    await op(session);
    session.dispose();
  });
  child.stdin.end();
  await new Promise((done) => child.on("exit", done));
}

async function conformance() {
  await withSession(["--permission-mode", "bypass"], async (session) => {
    let t = await turn(session, "hello conformance");
    assert.equal(t.stopReason, "end_turn");
    assert.match(textOf(t.updates, "agent_message_chunk"), /Echo: hello conformance/, JSON.stringify(t.updates));
    console.log("ok turn");
    t = await turn(session, "run: printf tool-output-%d 42");
    const call = t.updates.find((u) => u.sessionUpdate === "tool_call");
    assert.ok(call, JSON.stringify(t.updates));
    const done = t.updates.filter((u) => u.sessionUpdate === "tool_call_update" && u.status === "completed");
    assert.ok(done.some((u) => JSON.stringify(u).includes("tool-output-42")), JSON.stringify(t.updates));
    assert.match(textOf(t.updates, "agent_message_chunk"), /done/);
    console.log("ok tool call");
  });
  await withSession([], async (session) => {
    answers.permission = "once";
    let t = await turn(session, "run: touch acp-once.txt");
    assert.equal(t.stopReason, "end_turn");
    answers.permission = "reject";
    t = await turn(session, "run: touch acp-rejected.txt");
    assert.equal(t.stopReason, "end_turn");
  });
  const asked = permissionsAsked;
  console.log(`ok permissions (asked ${asked})`);
  // The same daemon over HTTP, with the library's own HTTP stream.
  const url = `${process.env.AGENTPLEX_ENDPOINT}/acp/${agent}?permissionMode=bypass`;
  await client().connectWith(createHttpStream(url), async (cx) => {
    await initialize(cx);
    const session = await cx.buildSession(cwd).start();
    const t = await turn(session, "hello over http");
    assert.equal(t.stopReason, "end_turn");
    assert.match(textOf(t.updates, "agent_message_chunk"), /Echo: hello over http/, JSON.stringify(t.updates));
    session.dispose();
  });
  console.log("ok turn over http");
}

const [mode, arg] = process.argv.slice(2);
try {
  if (mode === "scenarios") await scenarios();
  else if (mode === "load") await load(arg);
  else if (mode === "modes") await modes();
  else if (mode === "conformance") await conformance();
  else throw new Error(`unknown mode ${mode}`);
} catch (error) {
  console.error(`FAILED: ${error.stack ?? error}`);
  process.exit(1);
}
process.exit(0);
