// The browser of the suite: Playwright's library driving the system's Chromium
// ($CHROMIUM_PATH, else /usr/bin/chromium; Playwright's own browser downloads are not used).
import { chromium } from "playwright-core";

export const screenshots = process.env.UPDATE_SCREENSHOTS === "1";

/** Launches the browser, with extra command-line `args`. */
export async function launch(args = []) {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    headless: true,
    args: ["--disable-gpu", "--disable-dev-shm-usage", ...args],
  });
}

/** A new page with clipboard access; its uncaught exceptions are collected in `problems`. */
export async function newPage(browser, base) {
  const context = await browser.newContext({ viewport: { width: 1360, height: 860 } });
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: base });
  const page = await context.newPage();
  const problems = [];
  page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
  return { context, page, problems };
}

/** Opens the inspector and connects with `token`. */
export async function connect(page, base, token) {
  await page.goto(`${base}/ui/`);
  await page.getByTestId("token").fill(token);
  await page.getByRole("button", { name: "Connect" }).click();
  await page.getByRole("heading", { name: "Sessions" }).waitFor();
}
