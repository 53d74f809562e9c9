/**
 * The processes page: every process the daemon holds (status, exit code or signal), refreshed
 * every few seconds, with stop, kill and delete; and the form that starts one (command,
 * arguments, terminal or not).
 */
import { api, seg } from "./api.js";
import { formatTime, h, replaceChildren } from "./dom.js";
import type { ProcessCreateRequest, ProcessInfo, ProcessListResponse } from "./types.js";
import { errorText, toast, type View } from "./view.js";

/** How a process ended, or that it runs. */
export function outcome(process: ProcessInfo): string {
  if (process.status === "running") return "";
  if (process.signal != null) return `signal ${process.signal}`;
  return process.exitCode != null ? `exit ${process.exitCode}` : "";
}

/** The command line of a process, as one readable string (arguments with spaces quoted). */
export function commandLine(process: Pick<ProcessInfo, "command" | "args">): string {
  const quote = (word: string) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`);
  return [process.command, ...process.args].map(quote).join(" ");
}

/** Stop, kill and delete buttons of a process; `after` runs once the daemon answered. */
export function processActions(process: ProcessInfo, after: (deleted: boolean) => void): HTMLElement[] {
  const act = async (method: string, path: string, deleted: boolean) => {
    try {
      await api.json(method, path);
      after(deleted);
    } catch (error) {
      toast(errorText(error), "error");
    }
  };
  const running = process.status === "running";
  return [
    h("button", { disabled: !running, onclick: () => void act("POST", `/v1/processes/${seg(process.id)}/stop?waitMs=2000`, false) }, "Stop"),
    h("button", { disabled: !running, onclick: () => void act("POST", `/v1/processes/${seg(process.id)}/kill?waitMs=2000`, false) }, "Kill"),
    h("button", { class: "danger", disabled: running, onclick: () => void act("DELETE", `/v1/processes/${seg(process.id)}`, true) }, "Delete"),
  ];
}

function processTable(processes: ProcessInfo[], refresh: () => void): HTMLElement {
  if (processes.length === 0) return h("p", { class: "muted" }, "No process.");
  return h(
    "table",
    { class: "processes" },
    h("thead", null, h("tr", null, ["process", "command", "status", "exit", "pid", "started", ""].map((name) => h("th", null, name)))),
    h(
      "tbody",
      null,
      processes.map((process) =>
        h(
          "tr",
          { "data-process-id": process.id },
          h("td", null, h("a", { href: `#/processes/${encodeURIComponent(process.id)}` }, process.id), process.tty ? h("span", { class: "badge" }, "tty") : null),
          h("td", null, h("code", null, commandLine(process))),
          h("td", null, h("span", { class: `badge ${process.status}`, "data-testid": "process-status" }, process.status)),
          h("td", { "data-testid": "process-outcome" }, outcome(process)),
          h("td", { class: "num" }, process.pid ?? ""),
          h("td", null, formatTime(process.createdAtMs)),
          h("td", { class: "row-actions" }, processActions(process, refresh)),
        ),
      ),
    ),
  );
}

/** The arguments typed in the form: one per line, empty lines dropped. */
function argumentLines(text: string): string[] {
  return text.split("\n").filter((line) => line !== "");
}

/** The form that starts a process; opens the new process's page. */
function startForm(): HTMLElement {
  const command = h("input", { name: "command", required: true, placeholder: "sh", "data-testid": "process-command" });
  const args = h("textarea", { name: "args", rows: 2, placeholder: "one argument per line", "data-testid": "process-args" });
  const tty = h("input", { type: "checkbox", name: "tty", "data-testid": "process-tty" });
  const interactive = h("input", { type: "checkbox", name: "interactive", "data-testid": "process-interactive" });
  const cwd = h("input", { name: "cwd", placeholder: "(the daemon's working directory)" });
  const submit = async (event: Event) => {
    event.preventDefault();
    const body: ProcessCreateRequest = { command: command.value.trim(), args: argumentLines(args.value) };
    if (tty.checked) body.tty = true;
    if (interactive.checked) body.interactive = true;
    if (cwd.value.trim()) body.cwd = cwd.value.trim();
    try {
      const process = await api.json<ProcessInfo>("POST", "/v1/processes", body);
      location.hash = `#/processes/${encodeURIComponent(process.id)}`;
    } catch (error) {
      toast(errorText(error), "error");
    }
  };
  const field = (label: string, control: HTMLElement) => h("label", { class: "field-row" }, h("span", null, label), control);
  return h(
    "form",
    { class: "start-process", onsubmit: submit, "data-testid": "start-process" },
    h("h3", null, "Start a process"),
    field("Command", command),
    field("Arguments", args),
    field("Working directory", cwd),
    h(
      "div",
      { class: "actions" },
      h("label", null, tty, " terminal (tty)"),
      h("label", null, interactive, " keep stdin open"),
      h("button", { class: "primary", type: "submit" }, "Start"),
    ),
  );
}

/** The processes page. */
export function processesView(): View {
  const list = h("div", { class: "column", "data-testid": "process-list" }, h("p", { class: "muted" }, "loading"));
  const refresh = async () => {
    try {
      const { processes } = await api.json<ProcessListResponse>("GET", "/v1/processes");
      replaceChildren(list, processTable(processes, () => void refresh()));
    } catch (error) {
      toast(errorText(error), "error");
    }
  };
  void refresh();
  const timer = setInterval(() => void refresh(), 3000);
  const element = h(
    "div",
    { class: "processes-page" },
    h("div", { class: "toolbar" }, h("h2", null, "Processes"), h("button", { onclick: () => void refresh() }, "Refresh")),
    list,
    startForm(),
  );
  return { title: "Processes", element, dispose: () => clearInterval(timer) };
}
