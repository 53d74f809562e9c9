// Web pages attack a daemon that runs without a token on the same machine, in a real
// browser: a page on another site sends the requests a page may send without a preflight
// (an archive upload, ending a session, killing a process) and opens a terminal
// WebSocket; a page on a domain that "rebinds" to 127.0.0.1 (Chromium's resolver is told
// to map it there) reads files and runs commands as if the daemon were its own origin.
// Every attack must change and reveal nothing; the daemon's own page keeps working.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { launch } from "./browser.mjs";
import { startDaemon } from "./daemon.mjs";

let browser;
let daemon;
let home;
let dataDir;
let attacker;
let attackerPort;
/** The HTML the attacker's server answers with, by path. */
const pages = new Map();

/** A tar archive with one executable file `name` holding `text` (ustar, as tar writes it). */
function tarOf(name, text) {
  const data = Buffer.from(text);
  const header = Buffer.alloc(512);
  const field = (value, offset, length) => header.write(value.padEnd(length, "\0").slice(0, length), offset, "latin1");
  const octal = (value, length) => value.toString(8).padStart(length - 1, "0") + "\0";
  field(name, 0, 100);
  field(octal(0o755, 8), 100, 8);
  field(octal(0, 8), 108, 8);
  field(octal(0, 8), 116, 8);
  field(octal(data.length, 12), 124, 12);
  field(octal(0, 12), 136, 12);
  field("        ", 148, 8);
  field("0", 156, 1);
  field("ustar\0" + "00", 257, 8);
  let sum = 0;
  for (const byte of header) sum += byte;
  field(octal(sum, 7) + " ", 148, 8);
  const padding = Buffer.alloc((512 - (data.length % 512)) % 512);
  return Buffer.concat([header, data, padding, Buffer.alloc(1024)]);
}

/** Opens `url` (on the attacker's server unless routed) and waits for its script's verdict. */
async function visit(url, route) {
  const context = await browser.newContext();
  const page = await context.newPage();
  if (route) await page.route(url, (request) => request.fulfill({ contentType: "text/html", body: route }));
  await page.goto(url);
  const outcome = await page.waitForFunction(() => window.outcome, null, { timeout: 30_000 });
  const value = await outcome.jsonValue();
  await context.close();
  return value;
}

before(async () => {
  home = mkdtempSync(join(tmpdir(), "inspector-attacks-home-"));
  dataDir = mkdtempSync(join(tmpdir(), "inspector-attacks-"));
  writeFileSync(join(home, "secret.txt"), "private notes");
  attacker = createServer((request, response) => {
    const body = pages.get(new URL(request.url, "http://x").pathname);
    response.writeHead(body ? 200 : 404, { "content-type": "text/html" });
    response.end(body ?? "");
  });
  await new Promise((done) => attacker.listen(0, "127.0.0.1", done));
  attackerPort = attacker.address().port;
  [browser, daemon] = await Promise.all([
    launch([
      "--host-resolver-rules=MAP evil.test 127.0.0.1, MAP rebind.test 127.0.0.1",
      // Not every browser keeps public pages from loopback addresses: model one that does not.
      "--disable-features=LocalNetworkAccessChecks,BlockInsecurePrivateNetworkRequests,PrivateNetworkAccessSendPreflights,PrivateNetworkAccessRespectPreflightResults",
    ]),
    startDaemon({ dataDir, env: { HOME: home } }),
  ]);
});

after(async () => {
  await browser?.close();
  await daemon?.stop();
  attacker?.close();
  for (const dir of [home, dataDir]) if (dir) rmSync(dir, { recursive: true, force: true });
});

test("a page on another site changes nothing through simple requests or a WebSocket", async () => {
  await daemon.api("POST", "/v1/sessions/victim", { agent: "mock" });
  const sleeper = await daemon.api("POST", "/v1/processes", { command: "sleep", args: ["60"] });
  const shell = await daemon.api("POST", "/v1/processes", { command: "sh", tty: true, cwd: home });
  const target = `http://127.0.0.1:${daemon.port}`;
  const archive = tarOf("run-me", "#!/bin/sh\necho planted\n").toString("base64");
  pages.set(
    "/simple.html",
    `<script>
      (async () => {
        const daemon = ${JSON.stringify(target)};
        const archive = Uint8Array.from(atob(${JSON.stringify(archive)}), (c) => c.charCodeAt(0));
        const send = (path, body) => fetch(daemon + path, { method: "POST", mode: "no-cors", body }).catch(() => {});
        await send("/v1/fs/upload-batch?path=planted", new Blob([archive]));
        await send("/v1/fs/upload-batch?path=planted-as-text", archive);
        await send("/v1/sessions/victim/terminate");
        await send("/v1/processes/${sleeper.id}/kill");
        await send("/v1/fs/mkdir?path=made-by-a-page");
        const opened = await new Promise((done) => {
          const socket = new WebSocket(daemon.replace("http", "ws") + "/v1/processes/${shell.id}/terminal/ws");
          socket.onopen = () => { socket.send(JSON.stringify({ type: "input", data: "touch pwned\\n" })); setTimeout(() => done(true), 500); };
          socket.onerror = () => done(false);
        });
        window.outcome = { opened };
      })();
    </script>`,
  );
  const outcome = await visit(`http://evil.test:${attackerPort}/simple.html`);
  assert.equal(outcome.opened, false, "the page opened a terminal");
  await new Promise((done) => setTimeout(done, 500));
  for (const made of ["planted", "planted-as-text", "made-by-a-page", "pwned"]) {
    assert.equal(existsSync(join(home, made)), false, `${made} was written`);
  }
  const session = await daemon.api("GET", "/v1/sessions/victim");
  assert.equal(session.ended, false, "the page ended the session");
  assert.equal((await daemon.api("GET", `/v1/processes/${sleeper.id}`)).status, "running");
});

test("a rebound name reads no file and runs no command", async () => {
  const url = `http://rebind.test:${daemon.port}/attack.html`;
  // The attacker serves this page first; from then on the name points at the daemon.
  const html = `<script>
    (async () => {
      const read = await fetch("/v1/fs/file?path=secret.txt").then(async (r) => [r.status, await r.text()], (e) => [0, String(e)]);
      const run = await fetch("/v1/processes/run", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ command: "sh", args: ["-c", "echo ran > ran.txt"], cwd: ${JSON.stringify(home)} }),
      }).then((r) => r.status, () => 0);
      const opened = await new Promise((done) => {
        const socket = new WebSocket("ws://" + location.host + "/v1/processes/proc_1/terminal/ws");
        socket.onopen = () => done(true);
        socket.onerror = () => done(false);
      });
      window.outcome = { read, run, opened };
    })();
  </script>`;
  const outcome = await visit(url, html);
  assert.notEqual(outcome.read[0], 200, `the page read a file: ${outcome.read}`);
  assert.ok(!outcome.read[1].includes("private notes"), "the page saw the file's contents");
  assert.equal(outcome.read[0], 403);
  assert.equal(outcome.run, 403);
  assert.equal(outcome.opened, false, "the page opened a terminal");
  assert.equal(existsSync(join(home, "ran.txt")), false, "the page ran a command");
});

test("the daemon's own page still works without a token", async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`http://127.0.0.1:${daemon.port}/ui/`);
  const status = await page.evaluate(() => fetch("/v1/fs/mkdir?path=made-by-the-inspector", { method: "POST" }).then((r) => r.status));
  await context.close();
  assert.equal(status, 200);
  assert.ok(existsSync(join(home, "made-by-the-inspector")));
});
