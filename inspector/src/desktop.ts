/**
 * The Desktop page (`#/desktop`): the desktop's state with start and stop, its windows, and
 * its screen live on a canvas from the live view's WebSocket (`GET /v1/desktop/stream/ws`, the
 * token as `access_token`). The canvas sends input back: the pointer, its buttons and wheel,
 * and keys while it has the focus (click it first), in the screen's coordinates.
 */
import { api } from "./api.js";
import { h, replaceChildren } from "./dom.js";
import type { DesktopStatusResponse, DesktopStreamServerFrame } from "./types.js";
import { errorText, toast, type View } from "./view.js";

/** The browser's mouse buttons, as the daemon names them. */
const BUTTONS = ["left", "middle", "right"] as const;
/** Least time between two pointer moves sent, in milliseconds. */
const MOVE_EVERY = 30;

/** The WebSocket URL of the live view, with the token as `access_token`. */
function streamUrl(): string {
  const url = new URL(`${api.base}/v1/desktop/stream/ws`);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  if (api.token) url.searchParams.set("access_token", api.token);
  return url.toString();
}

/** The Desktop page. */
export function desktopView(): View {
  const state = h("p", { "data-testid": "desktop-state" }, "…");
  const note = h("p", { class: "muted", "data-testid": "desktop-note" });
  const windows = h("ul", { "data-testid": "desktop-windows" });
  const canvas = h("canvas", { tabindex: "0", class: "desktop-screen", "data-testid": "desktop-screen" });
  const start = h("button", { onclick: () => void change("start") }, "Start");
  const stop = h("button", { onclick: () => void change("stop") }, "Stop");
  let socket: WebSocket | undefined;
  let disposed = false;

  async function change(what: "start" | "stop"): Promise<void> {
    try {
      await api.json("POST", `/v1/desktop/${what}`);
    } catch (error) {
      toast(errorText(error), "error");
    }
    await refresh();
  }

  async function refresh(): Promise<void> {
    let status: DesktopStatusResponse;
    try {
      status = await api.json<DesktopStatusResponse>("GET", "/v1/desktop/status");
    } catch (error) {
      state.textContent = errorText(error);
      return;
    }
    const size = status.resolution ? ` ${status.resolution.width}x${status.resolution.height}` : "";
    state.textContent = `${status.state}${status.display ? ` on ${status.display}${size}` : ""}`;
    note.textContent = status.lastError
      ? `${status.lastError.code}: ${status.lastError.message}`
      : status.installCommand
        ? `Missing ${status.missingDependencies?.join(", ")}: ${status.installCommand}`
        : "";
    replaceChildren(
      windows,
      (status.windows ?? []).map((window) =>
        h("li", {}, `${window.title || "(untitled)"} · ${window.width}x${window.height}${window.isActive ? " · focused" : ""}`),
      ),
    );
    if (status.state === "active" && !socket) view();
    if (status.state !== "active") close();
  }

  function close(): void {
    socket?.close();
    socket = undefined;
  }

  /** Opens the live view: frames drawn as they come, input sent back. */
  function view(): void {
    const opened = new WebSocket(streamUrl());
    socket = opened;
    opened.binaryType = "blob";
    const context = canvas.getContext("2d")!;
    opened.addEventListener("message", (message: MessageEvent) => {
      // A socket the page closed (the desktop stopped, the view went) draws no more.
      if (socket !== opened) return;
      if (message.data instanceof Blob) {
        void createImageBitmap(message.data).then((frame) => {
          context.drawImage(frame, 0, 0, canvas.width, canvas.height);
          frame.close();
          canvas.dataset["frames"] = String(Number(canvas.dataset["frames"] ?? 0) + 1);
        });
        return;
      }
      const frame = JSON.parse(String(message.data)) as DesktopStreamServerFrame;
      if (frame.type === "ready") {
        canvas.width = frame.width;
        canvas.height = frame.height;
      } else if (frame.type === "error") {
        note.textContent = frame.message;
      }
    });
    opened.addEventListener("close", (event: CloseEvent) => {
      // Only the live socket's close is news: one the page closed itself says nothing.
      if (socket !== opened) return;
      socket = undefined;
      if (!disposed && event.reason) note.textContent = event.reason;
    });
  }

  const send = (frame: object) => {
    if (socket?.readyState === WebSocket.OPEN) socket.send(JSON.stringify(frame));
  };
  /** A pointer event's point in the screen's coordinates. */
  const point = (event: MouseEvent) => {
    const box = canvas.getBoundingClientRect();
    const x = Math.round(((event.clientX - box.left) * canvas.width) / box.width);
    const y = Math.round(((event.clientY - box.top) * canvas.height) / box.height);
    return { x: Math.min(Math.max(x, 0), canvas.width - 1), y: Math.min(Math.max(y, 0), canvas.height - 1) };
  };
  let lastMove = 0;
  canvas.addEventListener("mousemove", (event) => {
    if (event.timeStamp - lastMove < MOVE_EVERY) return;
    lastMove = event.timeStamp;
    send({ type: "mouseMove", ...point(event) });
  });
  for (const [kind, type] of [["mousedown", "mouseDown"], ["mouseup", "mouseUp"]] as const) {
    canvas.addEventListener(kind, (event) => {
      event.preventDefault();
      const at = point(event);
      // Keys go to the desktop once its screen was clicked (without scrolling the page).
      if (kind === "mousedown") canvas.focus({ preventScroll: true });
      send({ type, ...at, button: BUTTONS[event.button] ?? "left" });
    });
  }
  canvas.addEventListener("contextmenu", (event) => event.preventDefault());
  canvas.addEventListener(
    "wheel",
    (event) => {
      event.preventDefault();
      send({ type: "scroll", ...point(event), deltaX: Math.sign(event.deltaX), deltaY: Math.sign(event.deltaY) });
    },
    { passive: false },
  );
  // A character without Control, Alt or Meta is typed as text, so it comes out as the browser
  // produced it whatever the keyboard layouts; other keys (and chords) go down and up.
  const typed = new Set<string>();
  for (const [kind, type] of [["keydown", "keyDown"], ["keyup", "keyUp"]] as const) {
    canvas.addEventListener(kind, (event) => {
      if (event.key === "Unidentified" || event.key === "Dead") return;
      event.preventDefault();
      const character = [...event.key].length === 1 && !event.ctrlKey && !event.altKey && !event.metaKey;
      if (kind === "keydown" && character) {
        typed.add(event.code);
        send({ type: "type", text: event.key });
      } else if (kind === "keyup" && typed.delete(event.code)) {
        return;
      } else {
        send({ type, key: event.key });
      }
    });
  }

  const timer = setInterval(() => void refresh(), 2000);
  void refresh();
  return {
    title: "Desktop",
    element: h(
      "section",
      {},
      h("h1", {}, "Desktop"),
      h("div", { class: "toolbar" }, state, start, stop),
      note,
      canvas,
      h("h2", {}, "Windows"),
      windows,
    ),
    dispose() {
      disposed = true;
      clearInterval(timer);
      close();
    },
  };
}
