// The processes page in a real browser against the real daemon: a shell in a terminal
// (xterm.js over the terminal WebSocket, the token as access_token) that evaluates what is
// typed into it, a process's logs shown live, stop and delete.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { connect, launch, newPage, screenshots } from "./browser.mjs";
import { repo, startDaemon } from "./daemon.mjs";

const TOKEN = "inspector-processes-token";
let browser;
let daemon;
let dataDir;

async function shoot(page, name) {
  if (!screenshots) return;
  mkdirSync(join(repo, "docs", "inspector"), { recursive: true });
  await page.screenshot({ path: join(repo, "docs", "inspector", `${name}.png`) });
}

/** Starts a process from the form of the processes page; resolves on the process's page. */
async function start(page, { command, args = [], tty = false, interactive = false }) {
  await page.locator("#nav").getByRole("link", { name: "Processes" }).click();
  const form = page.getByTestId("start-process");
  await form.getByTestId("process-command").fill(command);
  await form.getByTestId("process-args").fill(args.join("\n"));
  await form.getByTestId("process-tty").setChecked(tty);
  await form.getByTestId("process-interactive").setChecked(interactive);
  await form.getByRole("button", { name: "Start" }).click();
  await page.waitForURL(/#\/processes\/proc_\d+$/);
  return decodeURIComponent(new URL(page.url()).hash.replace("#/processes/", ""));
}

/** Waits for the terminal's socket to be connected; on a timeout, says what the page shows instead. */
async function connectedTerminal(page) {
  const state = page.locator("[data-testid=terminal-state]");
  try {
    await state.filter({ hasText: /^connected$/ }).waitFor();
  } catch (error) {
    const shown = await state.textContent().catch(() => "(no state shown)");
    throw new Error(`the terminal is not connected; it shows ${JSON.stringify(shown)}`, { cause: error });
  }
}

/** The lines the terminal shows (xterm.js renders its rows as DOM text). */
function screenLines(page) {
  return page.$$eval("[data-testid=terminal] .xterm-rows > div", (rows) => rows.map((row) => row.textContent ?? ""));
}

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "inspector-processes-"));
  [browser, daemon] = await Promise.all([launch(), startDaemon({ dataDir, token: TOKEN })]);
});

after(async () => {
  await browser?.close();
  await daemon?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

test("a shell in a terminal: typed input is evaluated, the size follows the box", async () => {
  const { context, page, problems } = await newPage(browser, daemon.base);
  await connect(page, daemon.base, TOKEN);
  const id = await start(page, { command: "sh", tty: true });
  await connectedTerminal(page);

  await page.locator("[data-testid=terminal] .xterm").click();
  await page.keyboard.type("echo $((6*7))");
  await page.keyboard.press("Enter");
  // The typed line shows `6*7`; only the shell's answer has 42 (after its prompt, when the
  // prompt came after the echoed input).
  await page.waitForFunction(() =>
    [...document.querySelectorAll("[data-testid=terminal] .xterm-rows > div")].some((row) => /(^|\s)42\s*$/.test(row.textContent ?? "")),
  );

  // A new socket gets the recent screen back from the daemon's scrollback.
  await page.getByRole("button", { name: "Reconnect" }).click();
  await connectedTerminal(page);
  await page.waitForFunction(() =>
    [...document.querySelectorAll("[data-testid=terminal] .xterm-rows > div")].some((row) => /(^|\s)42\s*$/.test(row.textContent ?? "")),
  );
  await page.locator("[data-testid=terminal] .xterm").click();

  // The page told the daemon the terminal's size: stty sees what xterm.js fitted into the box.
  const { widthPx, rows } = await page.evaluate(() => ({
    rows: document.querySelector("[data-testid=terminal] .xterm-rows").children.length,
    widthPx: Math.round(document.querySelector("[data-testid=terminal] .xterm-screen").getBoundingClientRect().width),
  }));
  assert.ok(rows > 5, `rows ${rows}`);
  await page.keyboard.type("stty size");
  await page.keyboard.press("Enter");
  await page.waitForFunction(
    (expected) => [...document.querySelectorAll("[data-testid=terminal] .xterm-rows > div")].some((row) => new RegExp(`(^|\\s)${expected} \\d+\\s*$`).test(row.textContent ?? "")),
    rows,
  );
  const lines = await screenLines(page);
  const size = lines.map((line) => /(?:^|\s)(\d+) (\d+)\s*$/.exec(line)).find((m) => m && Number(m[1]) === rows);
  // Wider than the daemon's default 80 columns: the box is ~1300px wide.
  assert.ok(size && Number(size[2]) > 80 && Number(size[2]) < widthPx / 5, `stty size ${size?.[0]} for a screen ${widthPx}px wide`);
  // xterm.js's generated CSS applies, mirrored past the page's policy of no inline style:
  // without it the text would be black on the terminal's black background.
  const look = await page.$eval("[data-testid=terminal] .xterm-rows", (rows) => {
    const style = getComputedStyle(rows);
    return { color: style.color, whiteSpace: style.whiteSpace };
  });
  assert.deepEqual(look, { color: "rgb(255, 255, 255)", whiteSpace: "pre" });
  await shoot(page, "terminal");

  // The shell exits: the page shows it, the list too.
  await page.keyboard.type("exit 3");
  await page.keyboard.press("Enter");
  await page.locator("[data-testid=process-outcome]", { hasText: "exit 3" }).waitFor();
  await page.locator("#nav").getByRole("link", { name: "Processes" }).click();
  const row = page.locator(`tr[data-process-id="${id}"]`);
  await row.locator("[data-testid=process-status]", { hasText: "exited" }).waitFor();
  await row.locator("[data-testid=process-outcome]", { hasText: "exit 3" }).waitFor();
  await shoot(page, "processes");
  await row.getByRole("button", { name: "Delete" }).click();
  await row.waitFor({ state: "detached" });
  assert.deepEqual((await daemon.api("GET", "/v1/processes")).processes, []);
  assert.deepEqual(problems, []);
  await context.close();
});

test("Reconnect: the old socket's close, coming after the new socket connected, leaves it shown connected", async () => {
  const { context, page, problems } = await newPage(browser, daemon.base);
  let opened = 0;
  let lateCloseSent;
  const lateClose = new Promise((done) => (lateCloseSent = done));
  await page.routeWebSocket(/\/terminal\/ws/, (ws) => {
    opened += 1;
    const server = ws.connectToServer();
    if (opened !== 1) return;
    // The first socket's close reaches the page a second late, as on a busy machine.
    const closeLate = (code, reason) =>
      setTimeout(() => {
        ws.close({ code: code ?? 1000, reason: reason ?? "closed late" });
        lateCloseSent();
      }, 1000);
    ws.onClose((code, reason) => {
      server.close({ code, reason });
      closeLate(code, reason);
    });
    server.onClose(closeLate);
  });
  await connect(page, daemon.base, TOKEN);
  await start(page, { command: "sh", tty: true });
  await connectedTerminal(page);
  await page.getByRole("button", { name: "Reconnect" }).click();
  await connectedTerminal(page);
  await lateClose;
  await page.waitForTimeout(300);
  assert.equal(opened, 2);
  assert.equal(await page.getByTestId("terminal-state").textContent(), "connected");
  // The new terminal works.
  await page.locator("[data-testid=terminal] .xterm").click();
  await page.keyboard.type("exit 4");
  await page.keyboard.press("Enter");
  await page.locator("[data-testid=process-outcome]", { hasText: "exit 4" }).waitFor();
  assert.deepEqual(problems, []);
  await context.close();
});

test("a process without a terminal: its logs appear live; input, stop and the exit signal", async () => {
  const { context, page, problems } = await newPage(browser, daemon.base);
  await connect(page, daemon.base, TOKEN);
  const script = 'echo "to stdout"; echo "to stderr" >&2; while read line; do echo "got $line"; done';
  const id = await start(page, { command: "sh", args: ["-c", script], interactive: true });
  const output = page.getByTestId("process-output");
  await output.getByText("to stdout").waitFor();
  await output.locator(".stderr", { hasText: "to stderr" }).waitFor();

  await page.getByTestId("process-input").fill("ping 1");
  await page.getByTestId("process-input").press("Enter");
  await output.getByText("got ping 1").waitFor();
  await shoot(page, "process-logs");

  await page.getByRole("button", { name: "Stop" }).click();
  await page.locator("[data-testid=process-outcome]", { hasText: "signal 15" }).waitFor();
  await page.locator("[data-testid=process-status]", { hasText: "exited" }).waitFor();
  const info = await daemon.api("GET", `/v1/processes/${id}`);
  assert.equal(info.status, "exited");
  assert.equal(info.signal, 15);

  await page.getByRole("button", { name: "Delete" }).click();
  await page.waitForURL(/#\/processes$/);
  await page.getByTestId("process-list").locator("table, p").first().waitFor();
  assert.equal(await page.locator(`tr[data-process-id="${id}"]`).count(), 0);
  await assert.rejects(daemon.api("GET", `/v1/processes/${id}`), /404/);
  assert.deepEqual(problems, []);
  await context.close();
});
