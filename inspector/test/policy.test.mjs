// The inspector's view of an approval policy: each decision shows on the request it
// decided, the policy's as soon as it is made and the client's after it.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { connect, launch, newPage } from "./browser.mjs";
import { startDaemon } from "./daemon.mjs";

const TOKEN = "inspector-policy-token";
let browser;
let daemon;
let dir;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "inspector-policy-"));
  [browser, daemon] = await Promise.all([launch(), startDaemon({ dataDir: join(dir, "data"), token: TOKEN })]);
});

after(async () => {
  await browser?.close();
  await daemon?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test("a denied request and one left to the client show who decided what", async () => {
  const policy = { rules: [{ tool: "shell", command: "rm *", decision: "deny" }], default: "ask" };
  await daemon.api("POST", "/v1/sessions/policed", { agent: "mock", directory: dir, policy });
  const { context, page, problems } = await newPage(browser, daemon.base);
  await connect(page, daemon.base, TOKEN);
  await page.goto(`${daemon.base}/ui/#/sessions/policed`);
  await page.locator("[data-testid=follow-state]", { hasText: /^live$/ }).waitFor();
  const transcript = page.getByTestId("transcript");
  const send = async (message) => {
    await page.getByTestId("composer").fill(message);
    await page.getByRole("button", { name: "Send" }).click();
  };

  // Denied by the rule: the card says so, and nobody is asked.
  await send("permission rm -rf build");
  const denied = transcript.locator("[data-testid=policy-decision]", { hasText: "rm -rf build" });
  await denied.waitFor();
  assert.match(await denied.innerText(), /deny\s+shell rm -rf build · denied by rules\[0\]/);
  assert.equal(await transcript.locator(".request.permission.pending").count(), 0);

  // Left to the client by the default: asked on the page, then the answer recorded.
  await send("permission ls -la");
  const pending = transcript.locator(".request.permission.pending");
  await pending.waitFor();
  assert.match(await pending.getByTestId("policy-decision").innerText(), /ask\s+shell ls -la · left to the client by the policy's default/);
  await pending.getByRole("button", { name: "Allow once" }).click();
  const answered = transcript.locator(".request.permission.resolved", { hasText: "ls -la" });
  await answered.locator("[data-testid=policy-decision]", { hasText: "by the client" }).waitFor();
  const lines = await answered.getByTestId("policy-decision").allInnerTexts();
  assert.equal(lines.length, 2, lines.join("\n"));
  assert.match(lines[1], /allow\s+shell ls -la · allowed by the client/);
  assert.deepEqual(problems, []);
  await context.close();
});
