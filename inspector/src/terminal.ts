/**
 * A process's terminal in the page: xterm.js attached to the daemon's terminal WebSocket
 * (`GET /v1/processes/{id}/terminal/ws`, the token as `access_token`: a browser cannot set
 * headers on a WebSocket). Output arrives in binary frames; keystrokes and the terminal's size
 * go out as JSON control frames. The terminal fits its box and tells the daemon its size.
 */
import { FitAddon } from "@xterm/addon-fit";
import { Terminal } from "@xterm/xterm";
import { api, seg } from "./api.js";
import type { TerminalServerFrame } from "./types.js";

/** What the terminal tells its page. */
export interface TerminalEvents {
  /** `connecting`, `connected`, `closed` (with the close reason, if any). */
  onState(state: "connecting" | "connected" | "closed", detail?: string): void;
  /** The process exited. */
  onExit(exitCode: number | null | undefined, signal: number | null | undefined): void;
}

/** The WebSocket URL of a process's terminal, with the token as `access_token`. */
function socketUrl(id: string): string {
  const url = new URL(`${api.base}/v1/processes/${seg(id)}/terminal/ws`);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  if (api.token) url.searchParams.set("access_token", api.token);
  return url.toString();
}

/**
 * xterm.js writes the CSS it computes (cell size, colours) into `<style>` elements it adds to
 * the page. The inspector's content security policy allows no inline style, so the browser
 * ignores them; their text is mirrored here into constructed stylesheets, which the policy
 * does not restrict (they come from the page's own script). Returns the undo.
 */
function mirrorStyles(roots: Node[]): () => void {
  const sheets = new Map<HTMLStyleElement, CSSStyleSheet>();
  const sync = () => {
    for (const root of roots) {
      for (const style of (root as ParentNode).querySelectorAll("style")) {
        let sheet = sheets.get(style);
        if (!sheet) {
          sheet = new CSSStyleSheet();
          sheets.set(style, sheet);
          document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
        }
        sheet.replaceSync(style.textContent ?? "");
      }
    }
    for (const [style, sheet] of sheets) {
      if (style.isConnected) continue;
      sheets.delete(style);
      document.adoptedStyleSheets = document.adoptedStyleSheets.filter((s) => s !== sheet);
    }
  };
  const observer = new MutationObserver(sync);
  for (const root of roots) observer.observe(root, { subtree: true, childList: true, characterData: true });
  sync();
  return () => {
    observer.disconnect();
    const gone = new Set(sheets.values());
    document.adoptedStyleSheets = document.adoptedStyleSheets.filter((s) => !gone.has(s));
  };
}

/** Opens the terminal of process `id` in `box`; returns what closes it. */
export function openTerminal(box: HTMLElement, id: string, events: TerminalEvents): () => void {
  const terminal = new Terminal({ convertEol: false, cursorBlink: true, fontSize: 13, scrollback: 5000 });
  const fit = new FitAddon();
  terminal.loadAddon(fit);
  const unmirror = mirrorStyles([box, document.head]);
  terminal.open(box);
  fit.fit();

  const socket = new WebSocket(socketUrl(id));
  socket.binaryType = "arraybuffer";
  const send = (frame: object) => {
    if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(frame));
  };
  // Once the page closed this terminal (Reconnect opens another in its place), what its
  // socket still says is no longer the page's: its close, arriving after the new
  // socket connected, would show the new terminal as closed.
  let detached = false;
  events.onState("connecting");
  socket.addEventListener("message", (message: MessageEvent) => {
    if (detached) return;
    if (message.data instanceof ArrayBuffer) {
      terminal.write(new Uint8Array(message.data));
      return;
    }
    const frame = JSON.parse(String(message.data)) as TerminalServerFrame;
    if (frame.type === "ready") {
      events.onState("connected");
      send({ type: "resize", cols: terminal.cols, rows: terminal.rows });
    } else if (frame.type === "exit") {
      events.onExit(frame.exitCode, frame.signal);
    } else if (frame.type === "error") {
      terminal.write(`\r\n[${frame.message}]\r\n`);
    }
  });
  socket.addEventListener("close", (event: CloseEvent) => {
    if (!detached) events.onState("closed", event.reason || `code ${event.code}`);
  });
  const typed = terminal.onData((data) => send({ type: "input", data, encoding: "utf8" }));
  const resized = terminal.onResize(({ cols, rows }) => send({ type: "resize", cols, rows }));
  const refit = () => fit.fit();
  window.addEventListener("resize", refit);
  terminal.focus();

  return () => {
    detached = true;
    window.removeEventListener("resize", refit);
    typed.dispose();
    resized.dispose();
    send({ type: "close" });
    socket.close();
    terminal.dispose();
    unmirror();
  };
}
