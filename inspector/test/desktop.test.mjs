// The Desktop page in a real browser against the real daemon under Xvfb: started from the
// page, the live view shows frames of the screen, and a click and keys on the canvas reach a
// test program on the desktop (agentplex-test-window, which prints what it receives; its
// output read through the process API). Needs Xvfb and openbox (scripts/test.sh installs them).
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { connect, launch, newPage, screenshots } from "./browser.mjs";
import { binary, repo, startDaemon } from "./daemon.mjs";

const TOKEN = "inspector-desktop-token";
/** The test program, built beside the daemon (cargo builds the workspace's binaries). */
const testWindow = process.env.AGENTPLEX_TEST_WINDOW || join(dirname(binary), "agentplex-test-window");
let browser;
let daemon;
let dataDir;

before(async () => {
  if (!existsSync(testWindow)) throw new Error(`no test program at ${testWindow}: cargo build -p agentplex-test-window`);
  dataDir = mkdtempSync(join(tmpdir(), "inspector-desktop-data-"));
  [browser, daemon] = await Promise.all([launch(), startDaemon({ dataDir, token: TOKEN })]);
});

after(async () => {
  await daemon?.api("POST", "/v1/desktop/stop").catch(() => {});
  await browser?.close();
  await daemon?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** Waits until `check` answers something truthy. */
async function until(what, check, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The JSON lines the test program printed so far. */
async function received(processId) {
  const logs = await daemon.api("GET", `/v1/processes/${processId}/logs?stream=stdout`);
  const text = logs.entries.map((entry) => Buffer.from(entry.data, entry.encoding === "base64" ? "base64" : "utf8").toString()).join("");
  return text.split("\n").filter(Boolean).map((line) => JSON.parse(line));
}

test("start the desktop, see it live, click and type into a program on it", async () => {
  const { page, problems } = await newPage(browser, daemon.base);
  await connect(page, daemon.base, TOKEN);
  await page.locator("#nav").getByRole("link", { name: "Desktop" }).click();
  await page.getByRole("heading", { name: "Desktop" }).waitFor();
  await page.getByRole("button", { name: "Start" }).click();
  await until("the page to say active", async () => (await page.getByTestId("desktop-state").textContent()).startsWith("active"));

  // A program on the desktop: a 400x300 window, placed where we want it.
  const launched = await daemon.api("POST", "/v1/desktop/launch", { app: testWindow, args: ["live", "400", "300", "22aa44"], wait: true });
  assert.ok(launched.windowId, JSON.stringify(launched));
  const placed = await daemon.api("POST", `/v1/desktop/windows/${launched.windowId}/move`, { x: 100, y: 100 });
  assert.deepEqual([placed.x, placed.y], [100, 100]);

  // The live view draws frames; the canvas is the screen's size.
  const canvas = page.getByTestId("desktop-screen");
  await until("a frame", async () => Number(await canvas.getAttribute("data-frames")) > 0);
  const size = await canvas.evaluate((element) => [element.width, element.height]);
  assert.deepEqual(size, [1440, 900]);
  // The window shows green where it is, once a frame with it has come.
  const green = await until("the window in a frame", () =>
    canvas.evaluate((element) => {
      const [r, g, b] = element.getContext("2d").getImageData(300, 250, 1, 1).data;
      return g > 140 && r < 80 && b < 110 ? [r, g, b] : null;
    }),
  );
  assert.ok(green);

  // A click on the canvas where the window is reaches the program at that point.
  const box = await canvas.boundingBox();
  const scale = box.width / 1440;
  await page.mouse.click(box.x + 150 * scale, box.y + 160 * scale);
  const click = await until("the click to reach the program", async () => (await received(launched.processId)).find((line) => line.click));
  const [button, x, y] = click.click;
  assert.equal(button, 1);
  // Within the rounding of a scaled canvas.
  assert.ok(Math.abs(x - 50) <= 2 && Math.abs(y - 60) <= 2, JSON.stringify(click));

  // Keys typed on the focused canvas reach it too.
  await page.keyboard.type("Hi!");
  const typed = await until("the keys to reach the program", async () => {
    const text = (await received(launched.processId)).filter((line) => line.text).map((line) => line.text).join("");
    return text === "Hi!" ? text : null;
  });
  assert.equal(typed, "Hi!");

  if (screenshots) await page.screenshot({ path: join(repo, "docs", "inspector", "desktop.png") });
  await page.getByRole("button", { name: "Stop" }).click();
  await until("the page to say inactive", async () => (await page.getByTestId("desktop-state").textContent()).startsWith("inactive"));
  assert.deepEqual(problems, []);
});
