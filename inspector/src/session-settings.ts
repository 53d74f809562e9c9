/**
 * A running session's agent mode, permission mode and model, changed in place (`PUT
 * /v1/sessions/{id}/modes`) for agents whose adapter can (`modeChange`, `modelChange`): two
 * selects and a model field offering the agent's known models (any other name may be typed).
 * A change made elsewhere (another client, ACP) shows when its `modes changed` item arrives.
 */
import { api, seg } from "./api.js";
import { h, replaceChildren } from "./dom.js";
import type {
  AgentListResponse,
  AgentModelsResponse,
  AgentModesResponse,
  SessionInfo,
  SessionModes,
  UniversalEvent,
} from "./types.js";
import { errorText, toast } from "./view.js";

/** The permission modes a session may run with. */
const PERMISSION_MODES = ["default", "acceptEdits", "plan", "bypass"];
/** The label of the daemon's status item that records a change. */
const MODES_CHANGED = "modes changed";

/** The modes and model a `modes changed` item among `events` names last, if any. */
export function changedModes(events: UniversalEvent[]): SessionModes | undefined {
  let last: SessionModes | undefined;
  for (const event of events) {
    if (event.type !== "item.completed" || !("item" in event.data)) continue;
    for (const part of event.data.item.content) {
      if (part.type !== "status" || part.label !== MODES_CHANGED || !part.detail) continue;
      try {
        last = JSON.parse(part.detail) as SessionModes;
      } catch {
        // Not the daemon's record: left as the transcript shows it.
      }
    }
  }
  return last;
}

/** The settings row of a session page. */
export class SessionSettings {
  readonly element = h("form", { class: "session-settings", "data-testid": "session-settings", hidden: true });
  readonly #path: string;
  readonly #changed: (modes: SessionModes) => void;
  #agentMode?: HTMLSelectElement;
  #permissionMode?: HTMLSelectElement;
  #model?: HTMLInputElement;
  #current: SessionModes = {};

  /** `changed` hears every change the daemon accepted. */
  constructor(sessionId: string, changed: (modes: SessionModes) => void) {
    this.#path = `/v1/sessions/${seg(sessionId)}/modes`;
    this.#changed = changed;
    this.element.addEventListener("submit", (submit) => submit.preventDefault());
  }

  /** Shows the controls `info`'s agent can change (none: the row stays hidden). */
  async load(info: SessionInfo): Promise<void> {
    const agents = await api.json<AgentListResponse>("GET", "/v1/agents");
    const capabilities = agents.agents.find((agent) => agent.id === info.agent)?.capabilities;
    const agent = seg(info.agent);
    const [modes, models] = await Promise.all([
      capabilities?.modeChange ? api.json<AgentModesResponse>("GET", `/v1/agents/${agent}/modes`) : undefined,
      capabilities?.modelChange ? api.json<AgentModelsResponse>("GET", `/v1/agents/${agent}/models`) : undefined,
    ]);
    this.#current = { agentMode: info.agentMode, permissionMode: info.permissionMode, model: info.model ?? undefined };
    const controls: HTMLElement[] = [];
    if (modes) {
      this.#agentMode = this.#select("agent-mode", modes.modes.map((mode) => [mode.id, mode.name]), "agentMode");
      this.#permissionMode = this.#select("permission-mode", PERMISSION_MODES.map((mode) => [mode, mode]), "permissionMode");
      controls.push(this.#labelled("mode", this.#agentMode), this.#labelled("permissions", this.#permissionMode));
    }
    if (models) controls.push(this.#labelled("model", this.#modelField(models)));
    replaceChildren(this.element, controls, controls.length ? h("span", { class: "muted" }, "from the next message on") : null);
    this.element.hidden = controls.length === 0;
    this.show(this.#current);
  }

  /** Shows `modes` as the session's (a field left out keeps its value). */
  show(modes: SessionModes): void {
    this.#current = { ...this.#current, ...Object.fromEntries(Object.entries(modes).filter(([, value]) => value)) };
    if (this.#agentMode && this.#current.agentMode) this.#agentMode.value = this.#current.agentMode;
    if (this.#permissionMode && this.#current.permissionMode) this.#permissionMode.value = this.#current.permissionMode;
    if (this.#model) this.#model.value = this.#current.model ?? "";
  }

  /** No more changes: the session ended. */
  disable(): void {
    for (const control of this.element.querySelectorAll("select, input")) (control as HTMLInputElement).disabled = true;
  }

  /** Asks the daemon for `change`; shows what it answered, or puts the field back. */
  async #apply(change: SessionModes): Promise<void> {
    try {
      const answered = await api.json<SessionModes>("PUT", this.#path, change);
      this.show(answered);
      this.#changed(answered);
    } catch (error) {
      toast(errorText(error), "error");
      this.show(this.#current);
    }
  }

  #select(testId: string, options: [string, string][], field: "agentMode" | "permissionMode"): HTMLSelectElement {
    const select = h(
      "select",
      { "data-testid": testId, onchange: () => void this.#apply({ [field]: select.value }) },
      options.map(([value, name]) => h("option", { value }, name)),
    );
    return select;
  }

  #modelField(models: AgentModelsResponse): HTMLElement {
    const list = `models-${Math.random().toString(36).slice(2)}`;
    const input = h("input", {
      "data-testid": "model",
      list,
      placeholder: models.defaultModel ?? "the agent's default",
      onchange: () => {
        const model = input.value.trim();
        if (model && model !== this.#current.model) void this.#apply({ model });
        else this.show(this.#current);
      },
    });
    this.#model = input;
    return h("span", null, input, h("datalist", { id: list }, models.models.map((model) => h("option", { value: model.id }, model.name ?? model.id))));
  }

  #labelled(name: string, control: HTMLElement): HTMLElement {
    return h("label", { class: "field" }, h("span", { class: "muted" }, `${name} `), control);
  }
}
