/**
 * The agents page: each agent's install state, version, binary, whether credentials were
 * found (the API says only yes or no: values are never sent), capabilities, and an install
 * button that follows the install's progress stream.
 */
import { api, seg } from "./api.js";
import { h, replaceChildren } from "./dom.js";
import { readSse } from "./sse.js";
import type { AgentInfo, AgentListResponse } from "./types.js";
import { errorText, toast, type View } from "./view.js";

interface Progress {
  stage?: string;
  target?: string;
  bytesDone?: number;
  bytesTotal?: number;
}

/** The outcome of each agent's last install, kept across refreshes of the table. */
const outcomes = new Map<string, string>();

async function install(agent: AgentInfo, status: HTMLElement, reinstall: boolean): Promise<void> {
  const bar = h("progress", { max: 1 });
  const line = h("span", null, "starting");
  replaceChildren(status, bar, " ", line);
  try {
    const { response } = await api.send("POST", `/v1/agents/${seg(agent.id)}/install`, {
      accept: "text/event-stream",
      body: reinstall ? { reinstall: true } : {},
    });
    let outcome = "";
    await readSse(response, (message) => {
      const data = JSON.parse(message.data) as Progress & { version?: string; alreadyInstalled?: boolean; detail?: string };
      if (message.event === "progress") {
        if (data.bytesTotal) {
          bar.max = data.bytesTotal;
          bar.value = data.bytesDone ?? 0;
        } else bar.removeAttribute("value");
        line.textContent = `${data.stage ?? ""} ${data.target ?? ""} ${data.bytesDone ? `${Math.round(data.bytesDone / 1024)} KiB` : ""}`;
      } else if (message.event === "result") {
        outcome = data.alreadyInstalled ? `already installed ${data.version ?? ""}` : `installed ${data.version ?? ""}`;
      } else if (message.event === "error") {
        outcome = `failed: ${data.detail ?? message.data}`;
      }
    });
    outcomes.set(agent.id, outcome || "done");
  } catch (error) {
    outcomes.set(agent.id, errorText(error));
  }
  replaceChildren(status, outcomes.get(agent.id) ?? "");
}

/** The agents page. */
export function agentsView(): View {
  const body = h("div", null, h("p", { class: "muted" }, "loading"));
  const refresh = async () => {
    try {
      const { agents } = await api.json<AgentListResponse>("GET", "/v1/agents");
      replaceChildren(
        body,
        h(
          "table",
          { class: "agents" },
          h("thead", null, h("tr", null, ["agent", "installed", "version", "binary", "credentials", "adapter", "capabilities", "install"].map((name) => h("th", null, name)))),
          h(
            "tbody",
            null,
            agents.map((agent) => {
              const status = h("div", { class: "install-status" }, outcomes.get(agent.id) ?? "");
              const capabilities = Object.entries(agent.capabilities ?? {})
                .filter(([, on]) => on)
                .map(([name]) => name);
              return h(
                "tr",
                { "data-agent": agent.id },
                h("td", null, h("strong", null, agent.name ?? agent.id), h("div", { class: "muted" }, agent.id)),
                h("td", null, h("span", { class: `badge ${agent.installed ? "ok" : "missing"}` }, agent.installed ? "yes" : "no")),
                h("td", null, agent.version ?? ""),
                h("td", null, agent.path ? h("code", null, agent.path) : ""),
                h("td", null, h("span", { class: `badge ${agent.credentialsAvailable ? "ok" : "missing"}` }, agent.credentialsAvailable ? "found (redacted)" : "none found")),
                h("td", null, agent.adapterVersion ?? ""),
                h("td", null, h("details", null, h("summary", null, `${capabilities.length} on`), h("div", { class: "caps" }, capabilities.join(", ")))),
                h(
                  "td",
                  null,
                  h("button", { onclick: () => void install(agent, status, false).then(refresh) }, agent.installed ? "Check" : "Install"),
                  " ",
                  h("button", { onclick: () => void install(agent, status, true).then(refresh) }, "Reinstall"),
                  status,
                ),
              );
            }),
          ),
        ),
      );
    } catch (error) {
      toast(errorText(error), "error");
    }
  };
  void refresh();
  const element = h("div", { class: "agents-page" }, h("div", { class: "toolbar" }, h("h2", null, "Agents"), h("button", { onclick: () => void refresh() }, "Refresh")), body);
  return { title: "Agents", element };
}
