/**
 * The inspector's entry point: navigation, hash routes, and the connection check. Routes:
 * `#/sessions`, `#/new`, `#/sessions/<id>`, `#/processes`, `#/processes/<id>`, `#/agents`,
 * `#/log`, `#/files` (with `?path=` for a folder), `#/desktop`.
 */
import { agentsView } from "./agents.js";
import { api } from "./api.js";
import { connectView, probe } from "./connect.js";
import { h, replaceChildren } from "./dom.js";
import { desktopView } from "./desktop.js";
import { filesView } from "./files.js";
import { logView } from "./log.js";
import { sessionView } from "./session-view.js";
import { processView } from "./process-view.js";
import { processesView } from "./processes.js";
import { newSessionView, sessionsView } from "./sessions.js";
import type { View } from "./view.js";

const main = document.getElementById("main")!;
const nav = document.getElementById("nav")!;
const where = document.getElementById("connection")!;
let current: View | undefined;

const links: Array<[string, string]> = [
  ["#/sessions", "Sessions"],
  ["#/processes", "Processes"],
  ["#/agents", "Agents"],
  ["#/log", "HTTP log"],
  ["#/files", "Files"],
  ["#/desktop", "Desktop"],
];

function show(view: View): void {
  current?.dispose?.();
  current = view;
  document.title = `${view.title} · agentplex inspector`;
  replaceChildren(main, view.element);
}

function renderNav(): void {
  const hash = location.hash || "#/sessions";
  replaceChildren(
    nav,
    links.map(([href, label]) =>
      h("a", { href, class: hash.startsWith(href) || (href === "#/sessions" && hash.startsWith("#/new")) ? "active" : "" }, label),
    ),
  );
  replaceChildren(
    where,
    api.connected ? `${api.base}${api.token ? " · token set" : " · no token"} ` : "not connected ",
    api.connected ? h("button", { onclick: () => (api.disconnect(), route()) }, "Disconnect") : null,
  );
}

function route(): void {
  renderNav();
  if (!api.connected) {
    show(connectView(route));
    return;
  }
  const hash = location.hash || "#/sessions";
  const session = /^#\/sessions\/(.+)$/.exec(hash);
  const process = /^#\/processes\/(.+)$/.exec(hash);
  const files = /^#\/files(?:\?path=(.*))?$/.exec(hash);
  if (session) show(sessionView(decodeURIComponent(session[1]!)));
  else if (process) show(processView(decodeURIComponent(process[1]!)));
  else if (hash === "#/processes") show(processesView());
  else if (hash === "#/new") show(newSessionView());
  else if (hash === "#/agents") show(agentsView());
  else if (hash === "#/log") show(logView());
  else if (hash === "#/desktop") show(desktopView());
  else if (files) show(filesView(files[1] === undefined ? undefined : decodeURIComponent(files[1])));
  else show(sessionsView());
}

api.onUnauthorized(() => {
  if (!api.connected) return;
  api.connected = false;
  renderNav();
  show(connectView(route, "The daemon refused the token: connect again."));
});
window.addEventListener("hashchange", route);

// A token kept for this tab (or a daemon without a token): connect at once.
void probe().then(
  () => {
    api.connected = true;
    route();
  },
  () => route(),
);
