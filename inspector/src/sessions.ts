/**
 * The sessions page: live and stored (ended) sessions side by side, filtered by agent and
 * status, refreshed every few seconds; and the form that creates a session.
 */
import { api, seg } from "./api.js";
import { formatTime, h, replaceChildren } from "./dom.js";
import type { AgentListResponse, AgentModelsResponse, AgentModesResponse, CreateSessionRequest, CreateSessionResponse, SessionInfo, SessionListResponse } from "./types.js";
import { errorText, toast, type View } from "./view.js";

const STATUSES = ["idle", "running", "awaiting_input", "ended"];

/** A time of today as its clock time only; other days with their date (the full time on hover). */
function shortTime(ms: number): HTMLElement {
  const full = formatTime(ms);
  const today = formatTime(Date.now()).slice(0, 10);
  return h("span", { title: full }, full.startsWith(today) ? full.slice(11) : full);
}

function sessionTable(sessions: SessionInfo[], empty: string): HTMLElement {
  if (sessions.length === 0) return h("p", { class: "muted" }, empty);
  return h(
    "table",
    { class: "sessions" },
    h("thead", null, h("tr", null, ["session", "status", "agent", "model", "title", "started", "last event", "events"].map((name) => h("th", null, name)))),
    h(
      "tbody",
      null,
      sessions.map((session) =>
        h(
          "tr",
          { "data-session-id": session.sessionId },
          h("td", null, h("a", { href: `#/sessions/${encodeURIComponent(session.sessionId)}` }, session.sessionId)),
          h("td", null, h("span", { class: `badge ${session.status}` }, session.status.replace("_", " ")), session.queuedMessages ? ` +${session.queuedMessages} queued` : ""),
          h("td", null, session.agent),
          h("td", null, session.model ?? ""),
          h("td", null, session.title ?? ""),
          h("td", null, shortTime(session.createdAt)),
          h("td", null, shortTime(session.updatedAt)),
          h("td", { class: "num" }, session.eventCount),
        ),
      ),
    ),
  );
}

/** The sessions page. */
export function sessionsView(): View {
  let sessions: SessionInfo[] = [];
  const agentFilter = h("select", { "data-testid": "filter-agent" }, h("option", { value: "" }, "every agent"));
  const statusFilter = h("select", { "data-testid": "filter-status" }, h("option", { value: "" }, "every status"), STATUSES.map((status) => h("option", { value: status }, status.replace("_", " "))));
  const live = h("div", { class: "column", "data-testid": "live-sessions" });
  const stored = h("div", { class: "column", "data-testid": "stored-sessions" });
  const render = () => {
    const agents = [...new Set(sessions.map((session) => session.agent))].sort();
    const chosen = agentFilter.value;
    replaceChildren(agentFilter, h("option", { value: "" }, "every agent"), agents.map((agent) => h("option", { value: agent }, agent)));
    agentFilter.value = chosen;
    const shown = sessions.filter(
      (session) => (!agentFilter.value || session.agent === agentFilter.value) && (!statusFilter.value || session.status === statusFilter.value),
    );
    const byUpdate = (a: SessionInfo, b: SessionInfo) => b.updatedAt - a.updatedAt;
    replaceChildren(live, h("h3", null, "Live"), sessionTable(shown.filter((session) => !session.ended).sort(byUpdate), "No live session."));
    replaceChildren(stored, h("h3", null, "Ended (stored)"), sessionTable(shown.filter((session) => session.ended).sort(byUpdate), "No ended session."));
  };
  agentFilter.addEventListener("change", render);
  statusFilter.addEventListener("change", render);
  const refresh = async () => {
    try {
      sessions = (await api.json<SessionListResponse>("GET", "/v1/sessions")).sessions;
      render();
    } catch (error) {
      toast(errorText(error), "error");
    }
  };
  void refresh();
  const timer = setInterval(() => void refresh(), 5000);
  const element = h(
    "div",
    { class: "sessions-page" },
    h("div", { class: "toolbar" }, h("h2", null, "Sessions"), agentFilter, statusFilter, h("button", { onclick: () => void refresh() }, "Refresh"), h("a", { class: "button primary", href: "#/new" }, "New session")),
    h("div", { class: "columns" }, live, stored),
  );
  return { title: "Sessions", element, dispose: () => clearInterval(timer) };
}

/** Parses an optional JSON field of the form; throws with the field's name. */
function jsonField(name: string, text: string): unknown {
  if (!text.trim()) return undefined;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`${name}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** The form that creates a session. */
export function newSessionView(): View {
  const field = (label: string, control: HTMLElement, hint?: string) => h("label", { class: "field-row" }, h("span", null, label), control, hint ? h("small", { class: "muted" }, hint) : null);
  const id = h("input", { name: "id", value: `s-${Date.now().toString(36)}`, required: true, pattern: "[A-Za-z0-9._\\-]{1,128}" });
  const agent = h("select", { name: "agent" });
  const mode = h("select", { name: "mode" }, h("option", { value: "" }, "(default)"));
  const model = h("select", { name: "model" }, h("option", { value: "" }, "(default)"));
  const variants = h("datalist", { id: "new-session-variants", "data-testid": "variant-choices" });
  const variant = h("input", { name: "variant", placeholder: "(default)", list: "new-session-variants" });
  const permissionMode = h("select", { name: "permissionMode" }, ["default", "plan", "bypass", "acceptEdits"].map((value) => h("option", { value }, value)));
  const directory = h("input", { name: "directory", placeholder: "(the daemon's working directory)" });
  const title = h("input", { name: "title" });
  const env = h("textarea", { name: "env", rows: 2, placeholder: '{"NAME": "value"}' });
  const mcp = h("textarea", { name: "mcp", rows: 3, placeholder: '{"calc": {"type": "local", "command": ["node", "add.mjs"]}}' });
  const skills = h("textarea", { name: "skills", rows: 2, placeholder: '{"sources": [{"type": "local", "source": ".skills"}]}' });
  // The chosen model's variants (the default model's while none is chosen), its default as
  // the placeholder.
  let known: AgentModelsResponse | undefined;
  const fillVariants = () => {
    const chosen = known?.models.find((item) => item.id === (model.value || known?.defaultModel));
    replaceChildren(variants, (chosen?.variants ?? []).map((value) => h("option", { value })));
    variant.placeholder = chosen?.defaultVariant ? `(default: ${chosen.defaultVariant})` : "(default)";
  };
  model.addEventListener("change", fillVariants);
  // Each load counts; one overtaken by a newer (the agent changed meanwhile) adds nothing.
  let loads = 0;
  const loadAgent = async () => {
    const load = ++loads;
    replaceChildren(mode, h("option", { value: "" }, "(default)"));
    replaceChildren(model, h("option", { value: "" }, "(default)"));
    known = undefined;
    fillVariants();
    if (!agent.value) return;
    try {
      const [modes, models] = await Promise.all([
        api.json<AgentModesResponse>("GET", `/v1/agents/${seg(agent.value)}/modes`),
        api.json<AgentModelsResponse>("GET", `/v1/agents/${seg(agent.value)}/models`),
      ]);
      if (load !== loads) return;
      for (const item of modes.modes) mode.appendChild(h("option", { value: item.id }, `${item.name} (${item.id})`));
      for (const item of models.models) model.appendChild(h("option", { value: item.id }, `${item.name} (${item.id})${item.id === models.defaultModel ? " · default" : ""}`));
      known = models;
      fillVariants();
    } catch (error) {
      toast(errorText(error), "error");
    }
  };
  agent.addEventListener("change", () => void loadAgent());
  void api.json<AgentListResponse>("GET", "/v1/agents").then(
    async (list) => {
      for (const item of list.agents) agent.appendChild(h("option", { value: item.id }, `${item.name} (${item.id})${item.installed ? "" : " · not installed"}`));
      if (list.agents.some((item) => item.id === "mock")) agent.value = "mock";
      await loadAgent();
    },
    (error) => toast(errorText(error), "error"),
  );
  const submit = async (event: Event) => {
    event.preventDefault();
    try {
      const body: CreateSessionRequest = { agent: agent.value, permissionMode: permissionMode.value as CreateSessionRequest["permissionMode"] };
      if (mode.value) body.agentMode = mode.value;
      if (model.value) body.model = model.value;
      if (variant.value.trim()) body.variant = variant.value.trim();
      if (directory.value.trim()) body.directory = directory.value.trim();
      if (title.value.trim()) body.title = title.value.trim();
      const extra: Record<string, unknown> = { env: jsonField("env", env.value), mcp: jsonField("mcp", mcp.value), skills: jsonField("skills", skills.value) };
      for (const [name, value] of Object.entries(extra)) if (value !== undefined) (body as Record<string, unknown>)[name] = value;
      const answer = await api.json<CreateSessionResponse>("POST", `/v1/sessions/${seg(id.value.trim())}`, body);
      if (!answer.healthy) toast(`the agent failed to start: ${answer.error?.message ?? "unknown error"}`, "error");
      location.hash = `#/sessions/${encodeURIComponent(id.value.trim())}`;
    } catch (error) {
      toast(errorText(error), "error");
    }
  };
  const element = h(
    "form",
    { class: "new-session", onsubmit: submit, "data-testid": "new-session" },
    h("h2", null, h("a", { href: "#/sessions" }, "Sessions"), " / new"),
    field("Session id", id, "1 to 128 of A-Z a-z 0-9 . _ -"),
    field("Agent", agent),
    field("Mode", mode),
    field("Model", model),
    field("Variant", h("span", null, variant, variants), "the model's reasoning effort or thinking level"),
    field("Permission mode", permissionMode),
    field("Directory", directory, "must exist; relative to the daemon's working directory"),
    field("Title", title),
    field("Environment (JSON)", env),
    field("MCP servers (JSON)", mcp, "only for agents with the mcpServers capability"),
    field("Skills (JSON)", skills, "only for agents with the skills capability"),
    h("div", { class: "actions" }, h("button", { class: "primary", type: "submit" }, "Create session")),
  );
  return { title: "New session", element };
}
