// The HTTP log with copy-as-curl (the copied commands are run), the agents page, and a
// session that ended before the daemon restarted, opened from the store.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { connect, launch, newPage, screenshots } from "./browser.mjs";
import { repo, startDaemon } from "./daemon.mjs";

const TOKEN = "inspector-tools-token";
let browser;
let daemon;
let dataDir;

async function shoot(page, name) {
  if (!screenshots) return;
  mkdirSync(join(repo, "docs", "inspector"), { recursive: true });
  await page.screenshot({ path: join(repo, "docs", "inspector", `${name}.png`) });
}

/** Runs a copied command in a shell, with `%{http_code}` written after the body. */
function runCurl(command, env = {}) {
  const environment = { ...process.env, ...env };
  if (!("AGENTPLEX_TOKEN" in env)) delete environment.AGENTPLEX_TOKEN;
  return execFileSync("sh", ["-c", `${command} -w '\\n%{http_code}'`], { env: environment, encoding: "utf8" });
}

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "inspector-tools-"));
  [browser, daemon] = await Promise.all([launch(), startDaemon({ dataDir, token: TOKEN })]);
});

after(async () => {
  await browser?.close();
  await daemon?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

test("copy as curl gives commands that work, with the token only when asked", async () => {
  await daemon.api("POST", "/v1/sessions/curl-1", { agent: "mock" });
  const { context, page, problems } = await newPage(browser, daemon.base);
  await connect(page, daemon.base, TOKEN);
  await page.goto(`${daemon.base}/ui/#/sessions/curl-1`);
  await page.locator("[data-testid=follow-state]", { hasText: /^live$/ }).waitFor();
  await page.getByTestId("composer").fill("it's \"quoted\" & $HOME");
  await page.getByRole("button", { name: "Send" }).click();
  await page.getByTestId("transcript").locator(".item.role-assistant", { hasText: "it's \"quoted\" & $HOME" }).waitFor();
  await page.getByRole("link", { name: "HTTP log" }).click();
  const rows = page.locator("table.log tbody tr");
  await rows.first().waitFor();
  const curl = page.getByTestId("curl");

  // GET /v1/sessions, token written into the command.
  await page.getByTestId("include-token").check();
  await rows.filter({ hasText: /GET\s*\/v1\/sessions\s*200/ }).first().getByRole("button", { name: "Copy as curl" }).click();
  const withToken = await curl.innerText();
  assert.ok(withToken.includes(TOKEN));
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), withToken);
  const listed = runCurl(withToken).split("\n");
  assert.equal(listed.at(-1), "200");
  assert.ok(JSON.parse(listed.slice(0, -1).join("\n")).sessions.some((s) => s.sessionId === "curl-1"));
  await shoot(page, "http-log");

  // The message POST with its quoted body, the token read from the environment.
  await page.getByTestId("include-token").uncheck();
  await rows.filter({ hasText: "/messages" }).first().getByRole("button", { name: "Copy as curl" }).click();
  const withoutToken = await curl.innerText();
  assert.ok(!withoutToken.includes(TOKEN));
  assert.ok(withoutToken.includes("$AGENTPLEX_TOKEN"));
  assert.equal(runCurl(withoutToken).trim().split("\n").at(-1), "401");
  assert.equal(runCurl(withoutToken, { AGENTPLEX_TOKEN: TOKEN }).trim(), "204");
  const events = await daemon.api("GET", "/v1/sessions/curl-1/events");
  const users = events.events.filter((e) => e.type === "item.completed" && e.data.item.role === "user");
  assert.deepEqual(users.map((e) => e.data.item.content[0].text), ["it's \"quoted\" & $HOME", "it's \"quoted\" & $HOME"]);
  assert.deepEqual(problems, []);
  await context.close();
});

test("the agents page lists the mock agent and follows an install", async () => {
  const { context, page, problems } = await newPage(browser, daemon.base);
  await connect(page, daemon.base, TOKEN);
  await page.getByRole("link", { name: "Agents" }).click();
  const mock = page.locator("tr[data-agent=mock]");
  await mock.getByText("found (redacted)").waitFor();
  await mock.getByRole("button", { name: "Check" }).click();
  await mock.locator(".install-status", { hasText: /installed/ }).waitFor();
  await shoot(page, "agents");
  assert.deepEqual(problems, []);
  await context.close();
});

test("a session that ended before a restart opens from the store", async () => {
  const restartDir = mkdtempSync(join(tmpdir(), "inspector-restart-"));
  try {
    const first = await startDaemon({ dataDir: restartDir, token: TOKEN });
    await first.api("POST", "/v1/sessions/before-restart", { agent: "mock", title: "Ended before the restart" });
    await first.api("POST", "/v1/sessions/before-restart/messages", { message: "remember me" });
    await first.api("POST", "/v1/sessions/before-restart/messages", { message: "end" });
    for (let i = 0; ; i++) {
      const { sessions } = await first.api("GET", "/v1/sessions");
      if (sessions.find((s) => s.sessionId === "before-restart")?.ended) break;
      assert.ok(i < 200, "the session did not end");
      await new Promise((r) => setTimeout(r, 50));
    }
    await first.stop();
    const second = await startDaemon({ dataDir: restartDir, token: TOKEN });
    try {
      const { context, page, problems } = await newPage(browser, second.base);
      await connect(page, second.base, TOKEN);
      const stored = page.getByTestId("stored-sessions");
      await stored.getByRole("link", { name: "before-restart" }).click();
      const transcript = page.getByTestId("transcript");
      await transcript.locator(".item.role-assistant", { hasText: "remember me" }).waitFor();
      await transcript.getByText("session ended: completed (by agent)").waitFor();
      await page.locator("[data-testid=follow-state]", { hasText: /^ended$/ }).waitFor();
      assert.equal(await page.getByTestId("composer").isDisabled(), true);
      assert.deepEqual(problems, []);
      await context.close();
    } finally {
      await second.stop();
    }
  } finally {
    rmSync(restartDir, { recursive: true, force: true });
  }
});
