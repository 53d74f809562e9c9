// The inspector in a real browser against the real daemon with the builtin mock agent.
// Screenshots of the main views go to docs/inspector/ with UPDATE_SCREENSHOTS=1.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { connect, launch, newPage, screenshots } from "./browser.mjs";
import { repo, startDaemon } from "./daemon.mjs";

const TOKEN = "inspector-test-token";
const shots = join(repo, "docs", "inspector");
let browser;
let daemon;
let dataDir;

async function shoot(page, name) {
  if (!screenshots) return;
  mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: join(shots, `${name}.png`) });
}

/** Sends `message` from the session page's composer. */
async function send(page, message) {
  await page.getByTestId("composer").fill(message);
  await page.getByRole("button", { name: "Send" }).click();
}

/** Waits until the session page has received `count` events or more. */
async function waitForEvents(page, count) {
  await page.waitForFunction(
    (n) => Number.parseInt(document.querySelector("[data-testid=event-count]")?.textContent ?? "0", 10) >= n,
    count,
  );
}

/** The sequences of the raw view, in order. */
function sequences(page) {
  return page.$$eval(".raw-event", (rows) => rows.map((row) => Number(row.getAttribute("data-sequence"))));
}

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "inspector-data-"));
  [browser, daemon] = await Promise.all([launch(), startDaemon({ dataDir, token: TOKEN })]);
});

after(async () => {
  await browser?.close();
  await daemon?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe("the daemon serves the inspector", () => {
  test("/ui, /ui/ and the assets load without a token, with types and cache headers", async () => {
    for (const [path, type] of [["/ui", "text/html"], ["/ui/", "text/html"], ["/ui/app.js", "text/javascript"], ["/ui/app.css", "text/css"]]) {
      const response = await fetch(daemon.base + path);
      assert.equal(response.status, 200, path);
      assert.match(response.headers.get("content-type"), new RegExp(`^${type}`), path);
      assert.equal(response.headers.get("cache-control"), "no-cache", path);
      const etag = response.headers.get("etag");
      assert.ok(etag, path);
      const again = await fetch(daemon.base + path, { headers: { "if-none-match": etag } });
      assert.equal(again.status, 304, path);
    }
    const missing = await fetch(`${daemon.base}/ui/nope.js`);
    assert.equal(missing.status, 404);
    assert.match(missing.headers.get("content-type"), /problem\+json/);
    assert.equal((await fetch(`${daemon.base}/v1/sessions`)).status, 401);
  });

  test("the page asks for the token, refuses a wrong one, and keeps the right one for the tab", async () => {
    const { context, page, problems } = await newPage(browser, daemon.base);
    await page.goto(`${daemon.base}/ui`);
    await page.getByTestId("token").fill("wrong");
    await page.getByRole("button", { name: "Connect" }).click();
    await page.getByText("The daemon refused the token.").waitFor();
    await shoot(page, "connect");
    await page.getByTestId("token").fill(TOKEN);
    await page.getByRole("button", { name: "Connect" }).click();
    await page.getByRole("heading", { name: "Sessions" }).waitFor();
    await page.reload();
    await page.getByRole("heading", { name: "Sessions" }).waitFor();
    assert.deepEqual(problems, []);
    await context.close();
  });
});

describe("sessions and transcripts", () => {
  test("create a mock session, stream a reply, answer a permission, reload from the store", async () => {
    const { context, page, problems } = await newPage(browser, daemon.base);
    await connect(page, daemon.base, TOKEN);
    await page.getByRole("link", { name: "New session" }).click();
    const form = page.getByTestId("new-session");
    await form.locator("input[name=id]").fill("browser-1");
    await form.locator("select[name=agent]").selectOption("mock");
    await form.locator("select[name=model] option[value=mock-large]").waitFor({ state: "attached" });
    await form.locator("select[name=model]").selectOption("mock-large");
    // The chosen model's variants are suggested, its default as the placeholder.
    const levels = await form.getByTestId("variant-choices").locator("option").evaluateAll((options) =>
      options.map((option) => option.value),
    );
    assert.deepEqual(levels, ["low", "medium", "high"]);
    assert.equal(await form.locator("input[name=variant]").getAttribute("placeholder"), "(default: medium)");
    await form.locator("input[name=variant]").fill("high");
    await form.locator("input[name=title]").fill("Inspector test");
    await form.locator("input[name=directory]").fill(tmpdir());
    await form.getByRole("button", { name: "Create session" }).click();
    await page.locator("[data-testid=follow-state]", { hasText: /^live$/ }).waitFor();
    await page.locator(".session-summary", { hasText: "model mock-large (high)" }).waitFor();

    await send(page, "hello inspector");
    const transcript = page.getByTestId("transcript");
    await transcript.locator(".item.role-assistant", { hasText: "hello inspector" }).waitFor();
    await transcript.locator("[data-testid=usage]", { hasText: "input tokens 2" }).waitFor();

    // A permission, answered from the page where it was asked.
    await send(page, "permission");
    const request = transcript.locator(".request.permission.pending");
    await request.waitFor();
    await request.getByRole("button", { name: "Allow once" }).click();
    await transcript.getByText("Permission granted once").waitFor();
    await transcript.locator(".request.permission.resolved .badge.accept").waitFor();

    // A question, answered with an option.
    await send(page, "question");
    const question = transcript.locator(".request.question.pending");
    await question.getByLabel("Blue").check();
    await question.getByRole("button", { name: "Answer" }).click();
    await transcript.getByText("You answered: Blue.").waitFor();

    // The stream is dropped and resumed from the last sequence: no gap, no duplicate.
    await page.getByRole("button", { name: "Reconnect" }).click();
    await page.locator("[data-testid=follow-state]", { hasText: /^live$/ }).waitFor();
    await send(page, "demo");
    await transcript.getByText("Next: error and agent.unparsed events.").waitFor();
    await transcript.locator(".unparsed-event").first().waitFor();
    // Four turns: hello, permission, question, demo.
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=usage]").length === 4);
    const info = (await daemon.api("GET", "/v1/sessions")).sessions.find((s) => s.sessionId === "browser-1");
    await waitForEvents(page, info.eventCount);
    const seen = await sequences(page);
    assert.deepEqual(seen, Array.from({ length: seen.length }, (_, i) => i + 1));
    await transcript.locator("details.reasoning").first().waitFor();
    await transcript.locator(".diff .diff-add").first().waitFor();
    await shoot(page, "session");

    await page.getByRole("button", { name: "Raw" }).click();
    const unparsed = page.locator(".raw-event.unparsed").first();
    await unparsed.locator("summary").click();
    assert.match(await unparsed.locator("pre").innerText(), /"raw": \{\s*"raw": "mock"/);
    await shoot(page, "raw");
    await page.getByRole("button", { name: "Transcript" }).click();

    // A reload rebuilds the same transcript from the store.
    const before = await transcript.innerText();
    const count = (await sequences(page)).length;
    await page.reload();
    await waitForEvents(page, count);
    assert.equal(await page.getByTestId("transcript").innerText(), before);

    await page.getByRole("link", { name: "Sessions" }).first().click();
    await page.getByTestId("live-sessions").getByText("browser-1").waitFor();
    await shoot(page, "sessions");
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("agent text with HTML is shown as text and never runs", async () => {
    await daemon.api("POST", "/v1/sessions/inject", { agent: "mock" });
    const { context, page, problems } = await newPage(browser, daemon.base);
    await connect(page, daemon.base, TOKEN);
    await page.goto(`${daemon.base}/ui/#/sessions/inject`);
    await page.locator("[data-testid=follow-state]", { hasText: /^live$/ }).waitFor();
    const attacks = [
      `echo <img src=x onerror="window.__pwned='img'">`,
      `echo <script>window.__pwned='script'</script>`,
      "echo **bold** <a href=\"javascript:window.__pwned='link'\">click</a> [md](javascript:window.__pwned='md') ![i](x onerror=alert(1))",
    ];
    for (const attack of attacks) await send(page, attack);
    const transcript = page.getByTestId("transcript");
    await transcript.locator(".item.role-assistant", { hasText: "<script>window.__pwned='script'</script>" }).waitFor();
    await transcript.locator(".item.role-assistant", { hasText: `<img src=x onerror="window.__pwned='img'">` }).waitFor();
    await transcript.locator(".item.role-assistant strong", { hasText: "bold" }).waitFor();
    for (const link of await transcript.locator("a").all()) {
      assert.doesNotMatch((await link.getAttribute("href")) ?? "", /^\s*javascript:/i);
    }
    assert.equal(await transcript.locator("img, script, iframe, [onerror], [onclick]").count(), 0);
    assert.equal(await page.evaluate(() => window.__pwned), undefined);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("an image a tool returned inline is shown, an image file is named", async () => {
    await daemon.api("POST", "/v1/sessions/pictures", { agent: "mock" });
    for (const message of ["image", "image"]) {
      await daemon.api("POST", "/v1/sessions/pictures/messages", { message });
    }
    const ended = async () =>
      (await daemon.api("GET", "/v1/sessions/pictures/events")).events.filter((e) => e.type === "turn.ended").length;
    while ((await ended()) < 2) await new Promise((resolve) => setTimeout(resolve, 50));
    // The mock names image files; the first is made a tool's inline screenshot (a 1x1 PNG,
    // as agents print a desktop tool's image) on its way to the page.
    const pixel = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
    const { context, page, problems } = await newPage(browser, daemon.base);
    await page.route("**/v1/sessions/pictures/events?*", async (route) => {
      const response = await route.fetch();
      const body = await response.json();
      const part = body.events
        .flatMap((event) => event.data?.item?.content ?? [])
        .find((part) => part.type === "image");
      if (part) part.path = pixel;
      await route.fulfill({ response, json: body });
    });
    await connect(page, daemon.base, TOKEN);
    await page.goto(`${daemon.base}/ui/#/sessions/pictures`);
    const transcript = page.getByTestId("transcript");
    const shown = transcript.locator(".image-part img");
    await shown.first().waitFor();
    assert.equal(await shown.count(), 1);
    assert.equal(await shown.getAttribute("src"), pixel);
    await page.waitForFunction(() => document.querySelector(".image-part img")?.naturalWidth === 1);
    await transcript.locator(".image-ref code", { hasText: /image\.png$/ }).first().waitFor();
    assert.deepEqual(problems, []);
    await context.close();
  });
});
