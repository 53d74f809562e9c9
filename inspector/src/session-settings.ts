/**
 * A running session's agent mode, permission mode, model and variant, changed in place (`PUT
 * /v1/sessions/{id}/modes`) for agents whose adapter can (`modeChange`, `modelChange`,
 * `variantChange`): two selects, a model field offering the agent's known models and a
 * thinking field offering the current model's variants (any other name may be typed in each).
 * A change made elsewhere (another client, ACP) shows when its `modes changed` item arrives.
 * What the running agent offers (its `agent offered` item: a registry agent's own modes and
 * models) joins the choices.
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

/** The label of the daemon's status item that records what the agent offers. */
const AGENT_OFFERED = "agent offered";

/** One mode or model a running agent offers. */
export interface OfferedChoice {
  id: string;
  name?: string;
  description?: string;
  /** A model's variants (its thought levels). */
  variants?: string[];
  /** The variant the model runs while the session names none. */
  defaultVariant?: string;
}

/** What a running agent offers, as its `agent offered` item says. */
export interface AgentOffer {
  modes?: OfferedChoice[];
  currentMode?: string;
  models?: OfferedChoice[];
  currentModel?: string;
}

/** The detail of the last daemon status item labelled `label` among `events`, parsed. */
function lastRecord<T>(events: UniversalEvent[], label: string): T | undefined {
  let last: T | undefined;
  for (const event of events) {
    if (event.type !== "item.completed" || !("item" in event.data)) continue;
    for (const part of event.data.item.content) {
      if (part.type !== "status" || part.label !== label || !part.detail) continue;
      try {
        last = JSON.parse(part.detail) as T;
      } catch {
        // Not the daemon's record: left as the transcript shows it.
      }
    }
  }
  return last;
}

/** The modes and model a `modes changed` item among `events` names last, if any. */
export function changedModes(events: UniversalEvent[]): SessionModes | undefined {
  return lastRecord<SessionModes>(events, MODES_CHANGED);
}

/** What an `agent offered` item among `events` says last, if any. */
export function offeredChoices(events: UniversalEvent[]): AgentOffer | undefined {
  return lastRecord<AgentOffer>(events, AGENT_OFFERED);
}

/** The settings row of a session page. */
export class SessionSettings {
  readonly element = h("form", { class: "session-settings", "data-testid": "session-settings", hidden: true });
  readonly #path: string;
  readonly #changed: (modes: SessionModes) => void;
  #agentMode?: HTMLSelectElement;
  #permissionMode?: HTMLSelectElement;
  #model?: HTMLInputElement;
  #models?: HTMLDataListElement;
  #variant?: HTMLInputElement;
  #variants?: HTMLDataListElement;
  #known: { modes: [string, string][]; models: OfferedChoice[]; defaultModel?: string } = { modes: [], models: [] };
  #offer?: AgentOffer;
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
    this.#current = {
      agentMode: info.agentMode,
      permissionMode: info.permissionMode,
      model: info.model ?? undefined,
      variant: info.variant ?? undefined,
    };
    this.#known = {
      modes: modes?.modes.map((mode) => [mode.id, mode.name]) ?? [],
      models:
        models?.models.map((model) => ({
          id: model.id,
          name: model.name ?? undefined,
          variants: model.variants ?? undefined,
          defaultVariant: model.defaultVariant ?? undefined,
        })) ?? [],
      defaultModel: models?.defaultModel ?? undefined,
    };
    const controls: HTMLElement[] = [];
    if (modes) {
      this.#agentMode = this.#select("agent-mode", "agentMode");
      this.#permissionMode = this.#select("permission-mode", "permissionMode");
      replaceChildren(this.#permissionMode, PERMISSION_MODES.map((mode) => h("option", { value: mode }, mode)));
      controls.push(this.#labelled("mode", this.#agentMode), this.#labelled("permissions", this.#permissionMode));
    }
    if (models) controls.push(this.#labelled("model", this.#nameField("model")));
    if (capabilities?.variantChange) controls.push(this.#labelled("thinking", this.#nameField("variant")));
    replaceChildren(this.element, controls, controls.length ? h("span", { class: "muted" }, "from the next message on") : null);
    this.element.hidden = controls.length === 0;
    this.#fillChoices();
    this.show(this.#current);
  }

  /** Adds what the running agent offers to the choices: its own modes after the adapter's, its models in place of the adapter's. */
  offered(offer: AgentOffer): void {
    this.#offer = offer;
    this.#fillChoices();
    this.show(this.#current);
  }

  /**
   * The agent-mode options, the model suggestions and the current model's variants, from the
   * adapter's and the agent's offer.
   */
  #fillChoices(): void {
    const named = (choice: OfferedChoice): [string, string] => [choice.id, choice.name ?? choice.id];
    const modes = [...this.#known.modes];
    for (const [id, name] of (this.#offer?.modes ?? []).map(named)) {
      if (!modes.some(([known]) => known === id)) modes.push([id, name]);
    }
    if (this.#agentMode) replaceChildren(this.#agentMode, modes.map(([value, name]) => h("option", { value }, name)));
    const offeredModels = this.#offer?.models ?? [];
    const models = offeredModels.length ? offeredModels : this.#known.models;
    const option = ([value, name]: [string, string]) => h("option", { value }, name);
    if (this.#models) replaceChildren(this.#models, models.map(named).map(option));
    const agentsChoice = this.#offer?.currentModel;
    const agentsName = models.find(({ id }) => id === agentsChoice)?.name ?? agentsChoice;
    if (this.#model) this.#model.placeholder = agentsName ?? this.#known.defaultModel ?? "the agent's default";
    const running = this.#current.model ?? agentsChoice ?? this.#known.defaultModel;
    const model = models.find(({ id }) => id === running);
    if (this.#variants) replaceChildren(this.#variants, (model?.variants ?? []).map((v) => option([v, v])));
    if (this.#variant) this.#variant.placeholder = model?.defaultVariant ?? "the agent's default";
  }

  /** Shows `modes` as the session's (a field left out keeps its value). */
  show(modes: SessionModes): void {
    this.#current = { ...this.#current, ...Object.fromEntries(Object.entries(modes).filter(([, value]) => value)) };
    if (this.#agentMode && this.#current.agentMode) this.#agentMode.value = this.#current.agentMode;
    if (this.#permissionMode && this.#current.permissionMode) this.#permissionMode.value = this.#current.permissionMode;
    if (this.#model) this.#model.value = this.#current.model ?? "";
    if (this.#variant) this.#variant.value = this.#current.variant ?? "";
    // Another model has other variants.
    if (modes.model) this.#fillChoices();
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

  #select(testId: string, field: "agentMode" | "permissionMode"): HTMLSelectElement {
    const select = h("select", { "data-testid": testId, onchange: () => void this.#apply({ [field]: select.value }) });
    return select;
  }

  /** A field of the session's `field` (its model, or the model's variant) with its suggestions. */
  #nameField(field: "model" | "variant"): HTMLElement {
    const list = `${field}s-${Math.random().toString(36).slice(2)}`;
    const input = h("input", {
      "data-testid": field,
      list,
      onchange: () => {
        const name = input.value.trim();
        if (name && name !== this.#current[field]) void this.#apply({ [field]: name });
        else this.show(this.#current);
      },
    });
    const choices = h("datalist", { id: list, "data-testid": `${field}-choices` });
    if (field === "model") [this.#model, this.#models] = [input, choices];
    else [this.#variant, this.#variants] = [input, choices];
    return h("span", null, input, choices);
  }

  #labelled(name: string, control: HTMLElement): HTMLElement {
    return h("label", { class: "field" }, h("span", { class: "muted" }, `${name} `), control);
  }
}
