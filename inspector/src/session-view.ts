/**
 * One session: its transcript (paged from the store, then live over SSE, resumed after a
 * reconnect), the raw events, pending requests answered in place, a composer, its modes and
 * model changed in place, and the session's actions (cancel, terminate, delete).
 */
import { api, seg } from "./api.js";
import { formatTime, h, prettyJson, replaceChildren } from "./dom.js";
import { filesHref } from "./files.js";
import { changedModes, offeredChoices, SessionSettings } from "./session-settings.js";
import { SessionFollower, type FollowState } from "./sse.js";
import { Transcript } from "./transcript.js";
import type { EventsResponse, SessionInfo, SessionListResponse, SessionModes, UniversalEvent } from "./types.js";
import type { View } from "./view.js";
import { errorText, toast } from "./view.js";

const PAGE = 500;

/** The session page. */
export function sessionView(sessionId: string): View {
  let ended = false;
  let inTurn = false;
  let disposed = false;
  let follower: SessionFollower | undefined;
  let info: SessionInfo | undefined;
  const path = `/v1/sessions/${seg(sessionId)}`;

  const transcript = new Transcript({
    permission: async (id, reply) => {
      await act(() => api.json("POST", `${path}/permissions/${seg(id)}/reply`, { reply }));
    },
    question: async (id, answers) => {
      await act(() => api.json("POST", `${path}/questions/${seg(id)}/reply`, { answers }));
    },
    rejectQuestion: async (id) => {
      await act(() => api.json("POST", `${path}/questions/${seg(id)}/reject`));
    },
    open: () => !ended,
  });
  const settings = new SessionSettings(sessionId, (modes) => showModes(modes));
  const raw = h("div", { class: "raw-events", "data-testid": "raw-events" });
  const state = h("span", { class: "follow-state", "data-testid": "follow-state" }, "loading");
  const summary = h("div", { class: "session-summary" });
  const count = h("span", { class: "muted", "data-testid": "event-count" }, "0 events");
  let received = 0;

  const input = h("textarea", { rows: 2, placeholder: "Message (Enter sends, Shift+Enter for a new line)", "data-testid": "composer" });
  const send = async () => {
    const message = input.value;
    if (!message.trim()) return;
    // Cleared at once, so text typed while the request is under way is kept; given back
    // when the message was refused and nothing new was typed.
    input.value = "";
    const ok = await act(() => api.json("POST", `${path}/messages`, { message }));
    if (!ok && !input.value) input.value = message;
  };
  input.addEventListener("keydown", (key) => {
    if (key.key === "Enter" && !key.shiftKey) {
      key.preventDefault();
      void send();
    }
  });
  const composer = h("form", { class: "composer", onsubmit: (submit: Event) => (submit.preventDefault(), void send()) }, input, h("button", { class: "primary", type: "submit" }, "Send"));

  const transcriptTab = h("div", { class: "tab-panel" }, transcript.element);
  const rawTab = h("div", { class: "tab-panel", hidden: true }, raw);
  const tabButton = (label: string, panel: HTMLElement) =>
    h("button", {
      class: panel === transcriptTab ? "tab active" : "tab",
      "data-tab": label.toLowerCase(),
      onclick: (click: Event) => {
        for (const other of [transcriptTab, rawTab]) other.hidden = other !== panel;
        for (const button of (click.currentTarget as HTMLElement).parentElement!.children) button.classList.remove("active");
        (click.currentTarget as HTMLElement).classList.add("active");
      },
    }, label);

  const element = h(
    "div",
    { class: "session-page" },
    h(
      "div",
      { class: "session-head" },
      h("h2", null, h("a", { href: "#/sessions" }, "Sessions"), " / ", sessionId),
      summary,
      settings.element,
      h(
        "div",
        { class: "actions" },
        state,
        count,
        h("button", { title: "Close the event stream and resume from the last event", "data-action": "reconnect", onclick: () => follower?.drop() }, "Reconnect"),
        h("button", { "data-action": "cancel", onclick: () => void act(() => api.json("POST", `${path}/cancel`)) }, "Cancel turn"),
        h("button", { class: "danger", "data-action": "terminate", onclick: () => void act(() => api.json("POST", `${path}/terminate`)) }, "Terminate"),
        h("button", {
          class: "danger",
          "data-action": "delete",
          onclick: async () => {
            if (!confirm(`Delete session ${sessionId} and its transcript?`)) return;
            if (await act(() => api.json("DELETE", path))) location.hash = "#/sessions";
          },
        }, "Delete"),
      ),
      h("div", { class: "tabs" }, tabButton("Transcript", transcriptTab), tabButton("Raw", rawTab)),
    ),
    h("div", { class: "session-body" }, transcriptTab, rawTab),
    composer,
  );

  async function act(request: () => Promise<unknown>): Promise<boolean> {
    try {
      await request();
      return true;
    } catch (error) {
      toast(errorText(error), "error");
      return false;
    }
  }

  /** The session's metered model calls, summed from its `model.usage` events. */
  const metered = { calls: 0, input: 0, output: 0, cost: 0, priced: false };

  /** What the metered calls spent, and the session's caps. */
  function spending(): [string, string | undefined][] {
    const budget = info?.budget;
    const caps = [
      typeof budget?.maxCostUsd === "number" ? `$${budget.maxCostUsd}` : "",
      typeof budget?.maxTokens === "number" ? `${budget.maxTokens} tokens` : "",
    ].filter(Boolean);
    const spent = metered.calls
      ? `${metered.calls} · ${metered.input} in · ${metered.output} out${metered.priced ? ` · $${metered.cost.toFixed(4)}` : ""}`
      : undefined;
    return [
      ["model calls", spent],
      ["budget", caps.length ? caps.join(", ") : undefined],
    ];
  }

  function renderSummary(): void {
    if (!info) return;
    const fields: Array<[string, string | undefined]> = [
      ["agent", info.agent],
      ["mode", info.agentMode ?? undefined],
      ["model", info.model ? `${info.model}${info.variant ? ` (${info.variant})` : ""}` : undefined],
      ["permissions", info.permissionMode ?? undefined],
      ["status", ended ? "ended" : transcript.pending().length ? "awaiting_input" : inTurn ? "running" : "idle"],
      ["title", info.title ?? undefined],
      ["directory", info.directory ?? undefined],
      ["started", formatTime(info.createdAt)],
      ["native id", info.nativeSessionId ?? undefined],
      ...spending(),
    ];
    // The directory opens on the files page.
    const shown = (name: string, value: string) =>
      name === "directory" ? h("a", { href: filesHref(value), "data-testid": "session-directory" }, value) : value;
    replaceChildren(
      summary,
      fields
        .filter(([, value]) => value)
        .map(([name, value]) => h("span", { class: "field" }, h("span", { class: "muted" }, `${name} `), shown(name, value!))),
    );
  }

  /** Shows the modes, model and variant the session now runs with. */
  function showModes(modes: SessionModes): void {
    if (!info) return;
    info = {
      ...info,
      agentMode: modes.agentMode ?? info.agentMode,
      permissionMode: modes.permissionMode ?? info.permissionMode,
      model: modes.model ?? info.model,
      variant: modes.variant ?? info.variant,
    };
    settings.show(modes);
    renderSummary();
  }

  function onEvents(events: UniversalEvent[]): void {
    if (disposed) return;
    const body = element.querySelector(".session-body");
    // Follow the end of the transcript unless the reader scrolled up.
    const atEnd = !body || body.scrollHeight - body.scrollTop - body.clientHeight < 80;
    transcript.add(events);
    for (const event of events) {
      raw.appendChild(
        h(
          "details",
          { class: `raw-event type-${event.type.replace(".", "-")}${event.type === "agent.unparsed" ? " unparsed" : ""}`, "data-sequence": event.sequence },
          h("summary", null, `#${event.sequence} ${event.type} · ${event.source}${event.synthetic ? " · synthetic" : ""} · ${formatTime(event.time)}`),
          h("pre", null, prettyJson(event)),
        ),
      );
      if (event.type === "session.ended") ended = true;
      else if (event.type === "turn.started") inTurn = true;
      else if (event.type === "turn.ended") inTurn = false;
      else if (event.type === "model.usage") {
        metered.calls += 1;
        metered.input += event.data.input_tokens;
        metered.output += event.data.output_tokens;
        if (typeof event.data.cost_usd === "number") {
          metered.cost += event.data.cost_usd;
          metered.priced = true;
        }
      }
    }
    const offer = offeredChoices(events);
    if (offer) settings.offered(offer);
    const modes = changedModes(events);
    if (modes) showModes(modes);
    renderSummary();
    received += events.length;
    count.textContent = `${received} events`;
    if (ended) {
      transcript.refreshRequests();
      input.disabled = true;
      settings.disable();
    }
    if (body && atEnd) body.scrollTop = body.scrollHeight;
  }

  function onState(value: FollowState, detail?: string): void {
    state.textContent = value;
    state.className = `follow-state ${value}`;
    state.title = detail ?? "";
  }

  async function load(): Promise<void> {
    try {
      const list = await api.json<SessionListResponse>("GET", "/v1/sessions");
      info = list.sessions.find((session) => session.sessionId === sessionId);
      if (!info) {
        replaceChildren(element, h("p", { class: "error-event" }, `No session ${sessionId}.`), h("a", { href: "#/sessions" }, "Back to sessions"));
        return;
      }
      ended = info.ended;
      inTurn = info.status === "running";
      renderSummary();
      // The controls come when the agent's capabilities are read; the transcript does not wait.
      settings.load(info).then(
        () => ended && settings.disable(),
        (error: unknown) => toast(errorText(error), "error"),
      );
      onState("connecting", "loading the stored transcript");
      let offset = 0;
      for (;;) {
        const page = await api.json<EventsResponse>("GET", `${path}/events?offset=${offset}&limit=${PAGE}&include_raw=true`);
        if (disposed) return;
        onEvents(page.events);
        offset = page.events.at(-1)?.sequence ?? offset;
        if (!page.hasMore || page.events.length === 0) break;
      }
      if (ended) {
        onState("ended");
        input.disabled = true;
        return;
      }
      follower = new SessionFollower(sessionId, offset, onEvents, onState);
    } catch (error) {
      onState("stopped", errorText(error));
      toast(errorText(error), "error");
    }
  }
  void load();

  return {
    title: sessionId,
    element,
    dispose: () => {
      disposed = true;
      follower?.stop();
    },
  };
}
