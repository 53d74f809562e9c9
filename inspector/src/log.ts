/** The HTTP log page: every request the inspector made, with status and timing, and copy-as-curl. */
import { api, type LogEntry } from "./api.js";
import { toCurl } from "./curl.js";
import { h, replaceChildren } from "./dom.js";
import type { View } from "./view.js";

function statusClass(entry: LogEntry): string {
  if (entry.error) return "error";
  if (entry.status === undefined) return "pending";
  return entry.status < 400 ? "ok" : "error";
}

/** The HTTP log page. */
export function logView(): View {
  const includeToken = h("input", { type: "checkbox", "data-testid": "include-token" });
  const output = h("pre", { class: "curl", "data-testid": "curl", hidden: true });
  const rows = h("tbody");
  const copy = async (entry: LogEntry) => {
    const command = toCurl(entry, includeToken.checked ? api.token : undefined);
    output.textContent = command;
    output.hidden = false;
    try {
      await navigator.clipboard.writeText(command);
      output.dataset["copied"] = "true";
    } catch {
      output.dataset["copied"] = "false";
    }
  };
  const render = () => {
    replaceChildren(
      rows,
      [...api.log].reverse().map((entry) =>
        h(
          "tr",
          { "data-log-id": entry.id },
          h("td", { class: "num" }, entry.id),
          h("td", null, new Date(entry.startedAt).toLocaleTimeString(undefined, { hour12: false })),
          h("td", null, entry.method),
          h("td", { class: "url" }, entry.url.replace(api.base, "")),
          h("td", null, h("span", { class: `badge ${statusClass(entry)}` }, entry.error ? "failed" : (entry.status ?? "…"))),
          h("td", { class: "num" }, entry.ms !== undefined ? `${entry.ms} ms` : ""),
          h("td", { class: "muted" }, entry.streaming ? (entry.streamMs !== undefined ? `stream, ${(entry.streamMs / 1000).toFixed(1)} s` : "stream, open") : (entry.error ?? "")),
          h("td", null, h("button", { "data-action": "curl", onclick: () => void copy(entry) }, "Copy as curl")),
        ),
      ),
    );
  };
  render();
  const unsubscribe = api.onLog(render);
  const element = h(
    "div",
    { class: "log-page" },
    h(
      "div",
      { class: "toolbar" },
      h("h2", null, "HTTP log"),
      h("label", null, includeToken, " include the token in copied commands"),
      h("span", { class: "muted" }, "(otherwise they read $AGENTPLEX_TOKEN)"),
    ),
    output,
    h("table", { class: "log" }, h("thead", null, h("tr", null, ["#", "time", "method", "path", "status", "time to answer", "", ""].map((name) => h("th", null, name)))), rows),
  );
  return { title: "HTTP log", element, dispose: unsubscribe };
}
