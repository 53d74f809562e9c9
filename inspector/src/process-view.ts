/**
 * One process's page: what it runs, its status and exit, stop, kill and delete; a process
 * with a terminal shows the terminal (xterm.js over the terminal WebSocket, reopened on
 * demand with the recent screen from the scrollback), any other its
 * output followed live (`GET .../logs?follow=true`, resumed from the last entry after a drop)
 * and, when its stdin is open, a line to send to it.
 */
import { api, ApiError, seg } from "./api.js";
import { formatTime, h, replaceChildren } from "./dom.js";
import { commandLine, outcome, processActions } from "./processes.js";
import { readSse } from "./sse.js";
import { openTerminal } from "./terminal.js";
import type { ProcessInfo, ProcessLogEntry, ProcessLogsMissed } from "./types.js";
import { errorText, toast, type View } from "./view.js";

/** The bytes of a log entry (its data is base64). */
function entryBytes(entry: ProcessLogEntry): Uint8Array {
  const binary = atob(entry.data);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/**
 * Follows the process's output into `output` until it exits or `signal` aborts: stdout as
 * text, stderr marked, and a note where the ring buffer dropped output. After a dropped
 * connection it resumes from the last entry shown. Resolves with the process at its exit.
 */
async function followLogs(id: string, output: HTMLElement, signal: AbortSignal): Promise<ProcessInfo | undefined> {
  const decoders = new Map<string, TextDecoder>();
  let since: number | undefined;
  while (!signal.aborted) {
    try {
      const query = since === undefined ? "" : `&since=${since}`;
      const { response } = await api.send("GET", `/v1/processes/${seg(id)}/logs?follow=true${query}`, {
        accept: "text/event-stream",
        signal,
      });
      let exited: ProcessInfo | undefined;
      await readSse(response, (message) => {
        if (message.event === "log") {
          const entry = JSON.parse(message.data) as ProcessLogEntry;
          if (since !== undefined && entry.sequence <= since) return;
          since = entry.sequence;
          let decoder = decoders.get(entry.stream);
          if (!decoder) decoders.set(entry.stream, (decoder = new TextDecoder()));
          const text = decoder.decode(entryBytes(entry), { stream: true });
          output.append(entry.stream === "stderr" ? h("span", { class: "stderr" }, text) : text);
        } else if (message.event === "missed") {
          const missed = JSON.parse(message.data) as ProcessLogsMissed;
          output.append(h("span", { class: "missed" }, `\n[${missed.missedBytes} bytes dropped from the log]\n`));
        } else if (message.event === "exit") {
          exited = JSON.parse(message.data) as ProcessInfo;
        }
      });
      if (exited) return exited;
    } catch (error) {
      if (signal.aborted) break;
      toast(`logs: ${errorText(error)}`, "error");
      // An answer such as 404 (the process was deleted) will not change by asking again.
      if (error instanceof ApiError && error.status < 500) break;
    }
    // Dropped before the exit: resume from the last entry shown.
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  return undefined;
}

/** A line sent to the process's stdin (with a newline). */
function inputLine(id: string): HTMLElement {
  const line = h("input", { class: "process-input", placeholder: "a line for its stdin", "data-testid": "process-input" });
  const send = async (event: Event) => {
    event.preventDefault();
    try {
      await api.json("POST", `/v1/processes/${seg(id)}/input`, { data: `${line.value}\n`, encoding: "utf8" });
      line.value = "";
    } catch (error) {
      toast(errorText(error), "error");
    }
  };
  return h("form", { class: "composer", onsubmit: send }, line, h("button", { type: "submit" }, "Send"));
}

/** The page of process `id`. */
export function processView(id: string): View {
  const summary = h("div", { class: "session-summary" }, h("span", { class: "muted" }, "loading"));
  const actions = h("div", { class: "actions" });
  const body = h("div", { class: "process-body" });
  const state = h("span", { class: "follow-state", "data-testid": "terminal-state" });
  const stop = new AbortController();
  let closeTerminal: (() => void) | undefined;

  const show = (process: ProcessInfo) => {
    replaceChildren(
      summary,
      h("code", null, commandLine(process)),
      h("span", { class: `badge ${process.status}`, "data-testid": "process-status" }, process.status),
      h("span", { "data-testid": "process-outcome" }, outcome(process)),
      process.pid ? h("span", { class: "muted" }, `pid ${process.pid}`) : null,
      h("span", { class: "muted" }, `started ${formatTime(process.createdAtMs)}`),
      process.tty ? [state, h("button", { onclick: attach }, "Reconnect")] : null,
    );
    replaceChildren(actions, processActions(process, (deleted) => (deleted ? (location.hash = "#/processes") : void refresh())));
  };
  const refresh = async () => {
    try {
      show(await api.json<ProcessInfo>("GET", `/v1/processes/${seg(id)}`));
    } catch (error) {
      toast(errorText(error), "error");
    }
  };

  /** Opens the terminal (again: a new socket, which gets the recent screen from the scrollback). */
  const attach = () => {
    closeTerminal?.();
    const box = h("div", { class: "terminal-box", "data-testid": "terminal" });
    replaceChildren(body, box);
    closeTerminal = openTerminal(box, id, {
      onState: (now, detail) => {
        state.textContent = now === "closed" && detail ? `closed (${detail})` : now;
        state.className = `follow-state ${now === "connected" ? "live" : ""}`;
      },
      onExit: () => void refresh(),
    });
  };

  void api.json<ProcessInfo>("GET", `/v1/processes/${seg(id)}`).then(
    (process) => {
      show(process);
      if (process.tty) {
        attach();
        return;
      }
      const output = h("pre", { class: "process-output", "data-testid": "process-output" });
      const input = process.interactive && process.status === "running" ? inputLine(id) : null;
      replaceChildren(body, output, input);
      void followLogs(id, output, stop.signal).then((exited) => {
        if (!exited) return;
        show(exited);
        input?.remove(); // its stdin closed with it
      });
    },
    (error) => replaceChildren(body, h("p", { class: "error-text" }, errorText(error))),
  );

  const element = h(
    "div",
    { class: "process-page" },
    h("div", { class: "toolbar" }, h("h2", null, h("a", { href: "#/processes" }, "Processes"), ` / ${id}`), actions),
    summary,
    body,
  );
  return {
    title: id,
    element,
    dispose: () => {
      stop.abort();
      closeTerminal?.();
    },
  };
}
