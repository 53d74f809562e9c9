/**
 * The desktop routes (`/v1/desktop/*`) against the real daemon, with the Xvfb, openbox and ffmpeg
 * of the machine: a 640x480 desktop's screen, mouse, keyboard, clipboard, windows and
 * recordings, and the errors of a point off the screen and of a desktop that is not running.
 * Every test stops the desktop it started.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  connect,
  DesktopConflictError,
  DesktopNotRunningError,
  InvalidRequestError,
  RecordingNotFoundError,
  SpawnFailedError,
  WindowNotFoundError,
  type Agentplex,
} from "../src/index.js";
import { failure, startDaemon, type Daemon } from "./helpers.js";

let daemon: Daemon;
let client: Agentplex;

beforeAll(async () => {
  daemon = await startDaemon();
  client = await connect({ baseUrl: daemon.baseUrl });
});
afterAll(async () => {
  await client?.stopDesktop().catch(() => undefined);
  await daemon?.stop();
});

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** The width and height of a PNG image, from its IHDR chunk (after the signature). */
function pngSize(bytes: Uint8Array): { width: number; height: number } {
  expect([...bytes.subarray(0, 8)]).toEqual(PNG_SIGNATURE);
  expect(new TextDecoder().decode(bytes.subarray(12, 16))).toBe("IHDR");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return { width: view.getUint32(16), height: view.getUint32(20) };
}

/** Runs `body` on a started 640x480 desktop, and stops it after, whatever happened. */
async function withDesktop(body: () => Promise<void>): Promise<void> {
  try {
    const started = await client.startDesktop({ width: 640, height: 480 });
    expect(started.state).toBe("active");
    await body();
  } finally {
    await client.stopDesktop();
  }
}

describe("the desktop", () => {
  it("builds the live view's WebSocket URL", () => {
    const url = client.buildDesktopStreamWebSocketUrl({ accessToken: "t k", fps: 5, scale: 0.5 });
    expect(url).toBe(`${daemon.baseUrl.replace(/^http/, "ws")}/v1/desktop/stream/ws?access_token=t+k&fps=5&scale=0.5`);
  });

  it("refuses the routes of a desktop that is not running (DesktopNotRunningError, 409)", async () => {
    expect((await client.getDesktopStatus()).state).toBe("inactive");
    for (const call of [
      () => client.getDesktopMousePosition(),
      () => client.takeDesktopScreenshot(),
      () => client.clickDesktop({ x: 1, y: 1 }),
    ]) {
      const error = await failure(call());
      expect(error).toBeInstanceOf(DesktopNotRunningError);
      expect(error).toMatchObject({ code: "desktop_not_running", status: 409 });
    }
  });

  it("starts at 640x480: screenshots, the mouse, the keyboard and the clipboard", async () => {
    await withDesktop(async () => {
      const status = await client.getDesktopStatus();
      expect(status).toMatchObject({ state: "active", resolution: { width: 640, height: 480 } });
      expect(status.processes?.map((p) => p.name)).toEqual(expect.arrayContaining(["xvfb", "openbox"]));
      const info = await client.getDesktopDisplayInfo();
      expect(info.display).toBe(status.display);
      expect(info.resolution).toMatchObject({ width: 640, height: 480 });

      expect(pngSize(await client.takeDesktopScreenshot())).toEqual({ width: 640, height: 480 });
      const region = await client.takeDesktopRegionScreenshot({ x: 10, y: 20, width: 40, height: 30 });
      expect(pngSize(region)).toEqual({ width: 40, height: 30 });
      const jpeg = await client.takeDesktopScreenshot({ format: "jpeg", quality: 50, scale: 0.5, showCursor: true });
      expect([...jpeg.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);

      expect(await client.moveDesktopMouse({ x: 100, y: 120 })).toMatchObject({ x: 100, y: 120 });
      expect(await client.getDesktopMousePosition()).toMatchObject({ x: 100, y: 120 });
      expect(await client.clickDesktop({ x: 200, y: 150, clickCount: 2 })).toMatchObject({ x: 200, y: 150 });
      expect(await client.mouseDownDesktop({ x: 10, y: 10 })).toMatchObject({ x: 10, y: 10 });
      expect(await client.mouseUpDesktop({ button: "left" })).toMatchObject({ x: 10, y: 10 });
      const dragged = await client.dragDesktopMouse({ startX: 10, startY: 10, endX: 60, endY: 50 });
      expect(dragged).toMatchObject({ x: 60, y: 50 });
      expect(await client.scrollDesktop({ x: 60, y: 50, deltaY: 2 })).toMatchObject({ x: 60, y: 50 });

      // A point off the screen (x runs from 0 to 639) names the field.
      const offScreen = await failure(client.clickDesktop({ x: 640, y: 10 }));
      expect(offScreen).toBeInstanceOf(InvalidRequestError);
      expect(offScreen.status).toBe(400);
      expect(offScreen.detail).toContain("`x`");

      expect(await client.typeDesktopText({ text: "hé ✓", delayMs: 1 })).toEqual({ ok: true });
      expect(await client.pressDesktopKey({ key: "a", modifiers: { ctrl: true } })).toEqual({ ok: true });
      expect(await client.keyDownDesktop({ key: "Shift_L" })).toEqual({ ok: true });
      expect(await client.keyUpDesktop({ key: "Shift_L" })).toEqual({ ok: true });
      const noKey = await failure(client.pressDesktopKey({ key: "no-such-key" }));
      expect(noKey).toBeInstanceOf(InvalidRequestError);

      expect(await client.setDesktopClipboard({ text: "héllo ✓" })).toEqual({ ok: true });
      expect(await client.getDesktopClipboard()).toEqual({ selection: "clipboard", text: "héllo ✓" });
      await client.setDesktopClipboard({ text: "selected", selection: "primary" });
      expect(await client.getDesktopClipboard({ selection: "primary" })).toEqual({
        selection: "primary",
        text: "selected",
      });
      expect(Array.isArray(await client.listDesktopWindows())).toBe(true);

      // Stopped, the desktop refuses its routes again.
      expect((await client.stopDesktop()).state).toBe("inactive");
      expect(await failure(client.getDesktopClipboard())).toBeInstanceOf(DesktopNotRunningError);
    });
  });

  it("launches programs as managed processes; unknown windows are WindowNotFoundError (404)", async () => {
    await withDesktop(async () => {
      const missing = await failure(client.launchDesktopApp({ app: "no-such-program-for-the-sdk" }));
      expect(missing).toBeInstanceOf(SpawnFailedError);
      const sleeper = await client.launchDesktopApp({ app: "sleep", args: ["30"] });
      expect((await client.getProcess(sleeper.processId)).status).toBe("running");
      await client.killProcess(sleeper.processId, { waitMs: 5_000 });
      await client.deleteProcess(sleeper.processId);

      expect(await failure(client.getDesktopFocusedWindow())).toBeInstanceOf(WindowNotFoundError);
      // The id is one path segment, encoded.
      const unknown = await failure(client.focusDesktopWindow("1/2"));
      expect(unknown).toBeInstanceOf(WindowNotFoundError);
      expect(unknown).toMatchObject({ status: 404 });
      expect(unknown.detail).toContain("1/2");
      expect(await failure(client.closeDesktopWindow("999999"))).toBeInstanceOf(WindowNotFoundError);
      expect(await failure(client.openDesktopTarget({ target: "" }))).toBeInstanceOf(InvalidRequestError);
    });
  });

  // ffplay (of the ffmpeg package) opens a window of a known size.
  it("focuses, moves, resizes and closes a window", async () => {
    await withDesktop(async () => {
      const launched = await client.launchDesktopApp({
        app: "ffplay",
        args: ["-loglevel", "quiet", "-an", "-window_title", "sdk-window"].concat(
          ["-f", "lavfi", "-i", "color=c=red:s=200x150"],
        ),
        wait: true,
      });
      const id = launched.windowId!;
      expect(id).toMatch(/^\d+$/);
      const listed = (await client.listDesktopWindows()).find((w) => w.id === id);
      expect(listed).toMatchObject({ title: "sdk-window", width: 200, height: 150 });
      expect((await client.focusDesktopWindow(id)).isActive).toBe(true);
      expect((await client.getDesktopFocusedWindow()).id).toBe(id);
      expect(await client.moveDesktopWindow(id, { x: 10, y: 20 })).toMatchObject({ id, x: 10, y: 20 });
      expect(await client.resizeDesktopWindow(id, { width: 300, height: 200 })).toMatchObject({
        id,
        width: 300,
        height: 200,
      });
      expect(await client.closeDesktopWindow(id)).toEqual({ ok: true });
      await expect.poll(async () => (await client.listDesktopWindows()).map((w) => w.id)).not.toContain(id);
      expect(await failure(client.focusDesktopWindow(id))).toBeInstanceOf(WindowNotFoundError);
    });
  });

  it("records the screen to an MP4 file, downloaded whole", async () => {
    await withDesktop(async () => {
      const recording = await client.startDesktopRecording({ fps: 10 });
      expect(recording.status).toBe("recording");
      const again = await failure(client.startDesktopRecording());
      expect(again).toBeInstanceOf(DesktopConflictError);
      expect(again.status).toBe(409);
      expect(await failure(client.downloadDesktopRecording(recording.id))).toBeInstanceOf(DesktopConflictError);
      for (const x of [100, 200, 300]) {
        await client.moveDesktopMouse({ x, y: 100 });
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      const stopped = await client.stopDesktopRecording();
      expect(stopped).toMatchObject({ id: recording.id, status: "completed" });
      expect(stopped.bytes).toBeGreaterThan(0);
      expect((await client.listDesktopRecordings()).map((r) => r.id)).toContain(recording.id);
      expect(await client.getDesktopRecording(recording.id)).toMatchObject({ id: recording.id, status: "completed" });

      const mp4 = await client.downloadDesktopRecording(recording.id);
      expect(mp4.length).toBe(stopped.bytes);
      expect(new TextDecoder().decode(mp4.subarray(4, 8))).toBe("ftyp");

      await client.deleteDesktopRecording(recording.id);
      const gone = await failure(client.getDesktopRecording(recording.id));
      expect(gone).toBeInstanceOf(RecordingNotFoundError);
      expect(gone.status).toBe(404);
      expect(await failure(client.downloadDesktopRecording("a/b c"))).toBeInstanceOf(RecordingNotFoundError);
      expect(await failure(client.stopDesktopRecording())).toBeInstanceOf(DesktopConflictError);
    });
  });
});
