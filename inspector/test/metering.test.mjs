// The inspector's view of a metered session: a daemon with the model gateway, whose
// mock session runs a process that calls a stand-in model provider the way an agent
// does. Each call shows in the transcript; the session's calls, tokens, cost and
// budget show in its summary.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { connect, launch, newPage } from "./browser.mjs";
import { startDaemon } from "./daemon.mjs";

const TOKEN = "inspector-metering-token";
/** What the stand-in provider answers: one whole Messages answer with its usage. */
const ANSWER = {
  id: "msg_1",
  type: "message",
  role: "assistant",
  model: "claude-sonnet-4-5",
  content: [{ type: "text", text: "hi" }],
  stop_reason: "end_turn",
  usage: { input_tokens: 1000, output_tokens: 200, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
};
/** The agent's stand-in: one model call from the variables the daemon gave it. */
const AGENT = `
import json, os, urllib.request
request = urllib.request.Request(os.environ["ANTHROPIC_BASE_URL"] + "/v1/messages",
    data=json.dumps({"model": "claude-sonnet-4-5", "max_tokens": 16,
                     "messages": [{"role": "user", "content": "hi"}]}).encode(),
    headers={"x-api-key": os.environ["ANTHROPIC_API_KEY"], "content-type": "application/json"})
urllib.request.urlopen(request).read()
`;

let browser;
let daemon;
let provider;
let dir;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "inspector-metering-"));
  writeFileSync(join(dir, "agent.py"), AGENT);
  provider = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify(ANSWER));
    });
  });
  await new Promise((done) => provider.listen(0, "127.0.0.1", done));
  const env = {
    AGENTPLEX_GATEWAY: "1",
    ANTHROPIC_BASE_URL: `http://127.0.0.1:${provider.address().port}`,
    ANTHROPIC_API_KEY: "sk-inspector-test",
  };
  [browser, daemon] = await Promise.all([launch(), startDaemon({ dataDir: join(dir, "data"), token: TOKEN, env })]);
});

after(async () => {
  await browser?.close();
  await daemon?.stop();
  provider?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test("each model call and the session's spending and budget show", async () => {
  await daemon.api("POST", "/v1/sessions/metered", { agent: "mock", budget: { maxCostUsd: 5 } });
  const { context, page, problems } = await newPage(browser, daemon.base);
  await connect(page, daemon.base, TOKEN);
  await page.goto(`${daemon.base}/ui/#/sessions/metered`);
  await page.locator("[data-testid=follow-state]", { hasText: /^live$/ }).waitFor();
  await page.getByTestId("composer").fill(`shell python3 ${join(dir, "agent.py")}`);
  await page.getByRole("button", { name: "Send" }).click();

  // 1000 tokens in at $3 and 200 out at $15 per million (the shipped prices).
  const call = page.getByTestId("model-usage");
  await call.waitFor();
  assert.match(await call.innerText(), /model call claude-sonnet-4-5 · 1000 in · 200 out · \$0\.0060/);
  const summary = page.locator(".field", { hasText: "model calls" });
  assert.match(await summary.innerText(), /1 · 1000 in · 200 out · \$0\.0060/);
  assert.match(await page.locator(".field", { hasText: "budget" }).innerText(), /\$5/);
  assert.deepEqual(problems, []);
  await context.close();
});
