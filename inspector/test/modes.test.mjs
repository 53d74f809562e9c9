// A running session's modes, model and variant changed from its page: the controls show what the
// session runs with, a change reaches the agent from the next message on, a change made
// by another client shows, a refused one is put back, and an ended session's are off. A
// registry agent's own modes and models, once it offered them, are among the choices.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { connect, launch, newPage } from "./browser.mjs";
import { repo, startDaemon } from "./daemon.mjs";

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

test("the modes, model and variant change from the session's page", async () => {
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
  // The thinking field offers the model's variants, its default as the placeholder.
  const variant = settings.getByTestId("variant");
  await page.waitForFunction(() => document.querySelector("[data-testid=variant]")?.placeholder === "medium");
  const levels = await settings.getByTestId("variant-choices").locator("option").evaluateAll((options) =>
    options.map((option) => option.value),
  );
  assert.deepEqual(levels, ["low", "medium", "high"]);
  await variant.fill("high");
  await variant.press("Enter");
  await page.locator(".session-summary", { hasText: "model mock-large (high)" }).waitFor();
  await reply("settings", "Agent mode plan, permission mode default, model mock-large, variant high.");
  const info = await daemon.api("GET", "/v1/sessions/moded");
  assert.deepEqual([info.agentMode, info.model, info.variant], ["plan", "mock-large", "high"]);

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
  assert.equal(await variant.isDisabled(), true);
  assert.deepEqual(problems, []);
  await context.close();
});

/**
 * The registry tests' echo agent (testing/acp-registry/echo_agent.py, which offers the modes
 * `quiet` and `loud` and two models) as an entry of a registry snapshot in `dir`, its archive
 * served by a loopback releases mirror; the daemon's variables for both, and the mirror.
 */
async function echoRegistry(dir) {
  mkdirSync(join(dir, "echo/bin"), { recursive: true });
  copyFileSync(join(repo, "testing/acp-registry/echo_agent.py"), join(dir, "echo/bin/echo-agent"));
  execFileSync("chmod", ["755", join(dir, "echo/bin/echo-agent")]);
  execFileSync("tar", ["czf", join(dir, "echo.tar.gz"), "-C", join(dir, "echo"), "bin"]);
  const archive = readFileSync(join(dir, "echo.tar.gz"));
  const mirror = createServer((request, response) => {
    const found = request.url === "/releases.example/echo/echo-agent.tar.gz";
    response.writeHead(found ? 200 : 404).end(found ? archive : undefined);
  });
  await new Promise((listening) => mirror.listen(0, "127.0.0.1", listening));
  const platform = `linux-${{ x64: "x86_64", arm64: "aarch64" }[process.arch] ?? process.arch}`;
  const entry = {
    id: "echo-agent", name: "Echo", version: "1.0.0", description: "echoes",
    distribution: { binary: { [platform]: { archive: "https://releases.example/echo/echo-agent.tar.gz", cmd: "./bin/echo-agent" } } },
  };
  writeFileSync(join(dir, "registry.json"), JSON.stringify({ version: "1.0.0", agents: [entry], extensions: [] }));
  const env = {
    AGENTPLEX_ACP_REGISTRY: join(dir, "registry.json"),
    AGENTPLEX_RELEASES_MIRROR: `http://127.0.0.1:${mirror.address().port}`,
  };
  return { env, mirror };
}

test("a registry agent's own modes and models join the choices once it offers them", async () => {
  const { env, mirror } = await echoRegistry(dir);
  const registered = await startDaemon({ dataDir: join(dir, "registry-data"), token: TOKEN, env });
  try {
    await registered.api("POST", "/v1/registry/echo-agent", {});
    await registered.api("POST", "/v1/sessions/offered", { agent: "echo-agent", directory: dir });
    const { context, page, problems } = await newPage(browser, registered.base);
    await connect(page, registered.base, TOKEN);
    await page.goto(`${registered.base}/ui/#/sessions/offered`);
    const settings = page.getByTestId("session-settings");
    const agentMode = settings.getByTestId("agent-mode");
    await agentMode.waitFor();
    // The agent's modes come after the adapter's, its models in place of the adapter's none.
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=agent-mode] option").length === 3);
    const options = await agentMode.locator("option").evaluateAll((all) => all.map((o) => [o.value, o.textContent]));
    assert.deepEqual(options, [["build", "Build"], ["quiet", "Quiet"], ["loud", "Loud"]]);
    const models = await settings.getByTestId("model-choices").locator("option").evaluateAll((all) => all.map((o) => o.value));
    assert.deepEqual(models, ["echo-small", "echo-large"]);
    assert.equal(await settings.getByTestId("model").getAttribute("placeholder"), "Echo Small");

    // One of them picked on the page reaches the agent.
    await agentMode.selectOption("loud");
    await page.locator(".session-summary", { hasText: "mode loud" }).waitFor();
    await page.getByTestId("composer").fill("hello");
    await page.getByRole("button", { name: "Send" }).click();
    await page.getByTestId("transcript").getByText("echo: hello (mode loud)").waitFor();
    assert.deepEqual(problems, []);
    await context.close();
  } finally {
    await registered.stop();
    mirror.close();
  }
});
