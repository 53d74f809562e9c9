// A running session's modes and model changed from its page: the controls show what the
// session runs with, a change reaches the agent from the next message on, a change made
// by another client shows, a refused one is put back, and an ended session's are off.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { connect, launch, newPage } from "./browser.mjs";
import { startDaemon } from "./daemon.mjs";

const TOKEN = "inspector-modes-token";
let browser;
let daemon;
let dir;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "inspector-modes-"));
  [browser, daemon] = await Promise.all([launch(), startDaemon({ dataDir: join(dir, "data"), token: TOKEN })]);
});

after(async () => {
  await browser?.close();
  await daemon?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test("the modes and model change from the session's page", async () => {
  await daemon.api("POST", "/v1/sessions/moded", { agent: "mock", directory: dir });
  const { context, page, problems } = await newPage(browser, daemon.base);
  await connect(page, daemon.base, TOKEN);
  await page.goto(`${daemon.base}/ui/#/sessions/moded`);
  await page.locator("[data-testid=follow-state]", { hasText: /^live$/ }).waitFor();
  const settings = page.getByTestId("session-settings");
  const agentMode = settings.getByTestId("agent-mode");
  const permissionMode = settings.getByTestId("permission-mode");
  const model = settings.getByTestId("model");
  await agentMode.waitFor();
  assert.equal(await agentMode.inputValue(), "build");
  assert.equal(await permissionMode.inputValue(), "default");
  assert.equal(await model.inputValue(), "");
  assert.equal(await model.getAttribute("placeholder"), "mock");

  const transcript = page.getByTestId("transcript");
  const reply = async (message, expected) => {
    await page.getByTestId("composer").fill(message);
    await page.getByRole("button", { name: "Send" }).click();
    await transcript.getByText(expected).waitFor();
  };

  // Chosen on the page: the daemon has them, the agent runs with them.
  await agentMode.selectOption("plan");
  await page.locator(".session-summary", { hasText: "mode plan" }).waitFor();
  await reply("shell echo hi", "Plan mode: I would run");
  await model.fill("mock-large");
  await model.press("Enter");
  await page.locator(".session-summary", { hasText: "model mock-large" }).waitFor();
  await reply("settings", "Agent mode plan, permission mode default, model mock-large.");
  const info = await daemon.api("GET", "/v1/sessions/moded");
  assert.deepEqual([info.agentMode, info.model], ["plan", "mock-large"]);

  // Changed by another client: the page follows the transcript's record.
  await daemon.api("PUT", "/v1/sessions/moded/modes", { permissionMode: "bypass" });
  await page.waitForFunction(() => document.querySelector("[data-testid=permission-mode]")?.value === "bypass");
  await page.locator(".session-summary", { hasText: "permissions bypass" }).waitFor();

  // Refused: the problem is shown and the field shows the session's model again.
  await model.fill("m".repeat(201));
  await model.press("Enter");
  await page.locator(".toast.error", { hasText: "invalid model" }).waitFor();
  await page.waitForFunction(() => document.querySelector("[data-testid=model]")?.value === "mock-large");

  // Ended: nothing to change any more.
  await page.getByRole("button", { name: "Terminate" }).click();
  await page.waitForFunction(() => document.querySelector("[data-testid=agent-mode]")?.disabled === true);
  assert.equal(await model.isDisabled(), true);
  assert.deepEqual(problems, []);
  await context.close();
});
