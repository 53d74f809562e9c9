// The files page in a real browser against the real daemon's file API: a folder browsed
// (folders first, sizes, a folder opened, the crumbs back), a text file shown and a binary one
// not, a file downloaded (its bytes compared), files uploaded and a folder made (both checked
// on disk), an entry deleted, a path that does not exist answered with the daemon's problem;
// and a session's directory opened from its page.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { connect, launch, newPage, screenshots } from "./browser.mjs";
import { repo, startDaemon } from "./daemon.mjs";

const TOKEN = "inspector-files-token";
let browser;
let daemon;
let dataDir;
let folder;

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "inspector-files-data-"));
  folder = mkdtempSync(join(tmpdir(), "inspector-files-"));
  mkdirSync(join(folder, "src"));
  writeFileSync(join(folder, "src", "main.rs"), 'fn main() {\n    println!("hello from the files page");\n}\n');
  writeFileSync(join(folder, "notes.md"), "# Notes\n\nline two\n");
  writeFileSync(join(folder, "blob.bin"), Buffer.from([0, 1, 2, 255, 254, 0, 7]));
  [browser, daemon] = await Promise.all([launch(), startDaemon({ dataDir, token: TOKEN })]);
});

after(async () => {
  await browser?.close();
  await daemon?.stop();
  for (const dir of [dataDir, folder]) if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The names the folder's table lists, in order. */
function listed(page) {
  return page.$$eval("[data-testid=files-table] tbody tr td:first-child", (cells) => cells.map((cell) => cell.textContent.trim()));
}

test("browse, show, download, upload, make a folder, delete", async () => {
  const { context, page, problems } = await newPage(browser, daemon.base);
  await connect(page, daemon.base, TOKEN);

  // The nav's Files link opens the daemon's home; a folder typed in opens that folder.
  await page.locator("#nav").getByRole("link", { name: "Files" }).click();
  await page.getByRole("heading", { name: "Files" }).waitFor();
  await page.getByTestId("files-path").waitFor();
  await page.getByTestId("files-path").fill(folder);
  await page.getByRole("button", { name: "Open" }).click();
  await page.waitForURL((url) => decodeURIComponent(url.hash) === `#/files?path=${folder}`);
  await page.locator("[data-testid=files-table] tr[data-path$='/notes.md']").waitFor();
  assert.deepEqual(await listed(page), ["src/", "blob.bin", "notes.md"]);
  const size = await page.locator("tr[data-path$='/notes.md'] td.num").textContent();
  assert.equal(size, "18 B");

  // A folder opens by a click, and the crumbs lead back.
  await page.getByRole("link", { name: "src/" }).click();
  await page.locator("tr[data-path$='/src/main.rs']").waitFor();
  const name = folder.split("/").pop();
  await page.getByTestId("files-crumbs").getByRole("link", { name }).click();
  await page.locator("tr[data-path$='/notes.md']").waitFor();

  // A text file is shown; a binary one is not.
  await page.getByRole("button", { name: "notes.md" }).click();
  await page.getByTestId("file-text").waitFor();
  assert.equal(await page.getByTestId("file-text").textContent(), "# Notes\n\nline two\n");
  await page.getByRole("button", { name: "blob.bin" }).click();
  await page.getByTestId("file-binary").waitFor();

  // Download: the bytes the browser saves are the file's.
  const saving = page.waitForEvent("download");
  await page.locator("tr[data-path$='/blob.bin']").getByRole("button", { name: "Download" }).click();
  const download = await saving;
  assert.equal(download.suggestedFilename(), "blob.bin");
  const saved = await download.path();
  assert.deepEqual([...readFileSync(saved)], [0, 1, 2, 255, 254, 0, 7]);

  // Upload two files into the folder; they land on disk and in the table.
  await page.getByTestId("files-upload").setInputFiles([
    { name: "up.txt", mimeType: "text/plain", buffer: Buffer.from("uploaded through the inspector\n") },
    { name: "pixels.bin", mimeType: "application/octet-stream", buffer: Buffer.from([9, 8, 7, 0, 255]) },
  ]);
  await page.locator("tr[data-path$='/up.txt']").waitFor();
  await page.locator("tr[data-path$='/pixels.bin']").waitFor();
  assert.equal(readFileSync(join(folder, "up.txt"), "utf8"), "uploaded through the inspector\n");
  assert.deepEqual([...readFileSync(join(folder, "pixels.bin"))], [9, 8, 7, 0, 255]);

  // A new folder.
  await page.getByTestId("files-folder-name").fill("made here");
  await page.getByRole("button", { name: "Make folder" }).click();
  await page.getByRole("link", { name: "made here/" }).waitFor();
  assert.ok(existsSync(join(folder, "made here")));

  if (screenshots) {
    mkdirSync(join(repo, "docs", "inspector"), { recursive: true });
    await page.getByRole("button", { name: "notes.md" }).click();
    await page.getByTestId("file-text").waitFor();
    await page.screenshot({ path: join(repo, "docs", "inspector", "files.png") });
  }

  // Delete, confirmed: gone from disk and the table.
  page.once("dialog", (dialog) => void dialog.accept());
  await page.locator("tr[data-path$='/up.txt']").getByRole("button", { name: "Delete" }).click();
  await page.locator("tr[data-path$='/up.txt']").waitFor({ state: "detached" });
  assert.ok(!existsSync(join(folder, "up.txt")));

  // A folder that does not exist: the daemon's problem, on the page.
  await page.goto(`${daemon.base}/ui/#/files?path=${encodeURIComponent(join(folder, "missing"))}`);
  await page.getByTestId("files-error").waitFor();
  assert.match(await page.getByTestId("files-error").textContent(), /^404 path_not_found/);

  assert.deepEqual(problems, []);
  await context.close();
});

test("a session's directory opens on the files page", async () => {
  await daemon.api("POST", "/v1/sessions/with-files", { agent: "mock", directory: folder });
  const { context, page, problems } = await newPage(browser, daemon.base);
  await connect(page, daemon.base, TOKEN);
  await page.goto(`${daemon.base}/ui/#/sessions/with-files`);
  await page.getByTestId("session-directory").click();
  await page.waitForURL((url) => decodeURIComponent(url.hash) === `#/files?path=${folder}`);
  await page.locator("tr[data-path$='/notes.md']").waitFor();
  assert.deepEqual(problems, []);
  await context.close();
});
