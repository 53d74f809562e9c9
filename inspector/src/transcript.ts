/**
 * A session's transcript: universal events folded into blocks (turns, items, requests,
 * errors) that are rendered once and re-rendered only when an event changes them.
 */
import { formatTime, h, prettyJson } from "./dom.js";
import { renderItem } from "./items.js";
import type { UniversalEvent, UniversalItem } from "./types.js";

/** Answers to human-in-the-loop requests, given by the session page. */
export interface Answers {
  permission(id: string, reply: "once" | "always" | "reject"): Promise<void>;
  question(id: string, answers: string[][]): Promise<void>;
  rejectQuestion(id: string): Promise<void>;
  /** Whether the session still takes answers. */
  open(): boolean;
}

interface Block {
  element: HTMLElement;
  render(): HTMLElement;
}

type EventOf<T extends UniversalEvent["type"]> = Extract<UniversalEvent, { type: T }>;

/** The transcript view of one session. */
export class Transcript {
  readonly element = h("div", { class: "transcript", "data-testid": "transcript" });
  private blocks = new Map<string, Block>();
  private dirty = new Set<Block>();
  private items = new Map<string, { item: UniversalItem; streamed: string; time: string }>();
  private permissions = new Map<string, EventOf<"permission.requested"> | EventOf<"permission.resolved">>();
  private questions = new Map<string, EventOf<"question.requested"> | EventOf<"question.resolved">>();
  /** The approval policy's decisions on each permission request (an `ask`, then the client's). */
  private decisions = new Map<string, EventOf<"permission.decided">[]>();
  private counter = 0;

  constructor(private readonly answers: Answers) {}

  /** Pending permission and question ids. */
  pending(): string[] {
    const ids: string[] = [];
    for (const [id, event] of this.permissions) if (event.data.status === "requested") ids.push(id);
    for (const [id, event] of this.questions) if (event.data.status === "requested") ids.push(id);
    return ids;
  }

  /** Folds events in and updates the page. */
  add(events: UniversalEvent[]): void {
    for (const event of events) this.fold(event);
    for (const block of this.dirty) {
      const next = block.render();
      block.element.replaceWith(next);
      block.element = next;
    }
    this.dirty.clear();
  }

  /** Re-renders the request cards (after the session ended, their buttons go). */
  refreshRequests(): void {
    for (const id of [...this.permissions.keys(), ...this.questions.keys()]) {
      const block = this.blocks.get(`req:${id}`);
      if (block) this.dirty.add(block);
    }
    this.add([]);
  }

  private block(key: string, render: () => HTMLElement): void {
    const existing = this.blocks.get(key);
    if (existing) {
      this.dirty.add(existing);
      return;
    }
    const block: Block = { element: render(), render };
    this.blocks.set(key, block);
    this.element.appendChild(block.element);
  }

  private once(render: () => HTMLElement): void {
    this.block(`once:${this.counter++}`, render);
  }

  private fold(event: UniversalEvent): void {
    const time = formatTime(event.time);
    switch (event.type) {
      case "session.started":
        this.once(() => h("div", { class: "marker session" }, `session started · ${time}`));
        break;
      case "session.ended": {
        const data = event.data;
        this.once(() =>
          h(
            "div",
            { class: `marker session-ended reason-${data.reason}` },
            `session ended: ${data.reason} (by ${data.terminated_by})${data.message ? ` · ${data.message}` : ""} · ${time}`,
            data.stderr ? h("pre", { class: "stderr" }, [data.stderr.head, data.stderr.tail].filter(Boolean).join("\n…\n")) : null,
          ),
        );
        break;
      }
      case "turn.started":
        this.once(() => h("div", { class: "marker turn" }, `turn ${event.data.turn_id ?? ""} · ${time}`));
        break;
      case "turn.ended": {
        const usage = event.data.usage;
        const parts = usage
          ? Object.entries(usage)
              .filter(([, value]) => value !== undefined && value !== null)
              .map(([name, value]) => `${name.replace(/_/g, " ")} ${value}`)
          : [];
        this.once(() =>
          h("div", { class: "marker turn-ended", "data-testid": "usage" }, `turn ended${parts.length ? ` · ${parts.join(" · ")}` : ""}`),
        );
        break;
      }
      case "model.usage": {
        const data = event.data;
        const parts = [
          `${data.input_tokens} in`,
          data.cache_read_tokens ? `${data.cache_read_tokens} cached` : "",
          `${data.output_tokens} out`,
          typeof data.cost_usd === "number" ? `$${data.cost_usd.toFixed(4)}` : "",
          `${data.duration_ms} ms`,
          data.status >= 400 ? `HTTP ${data.status}` : "",
          data.complete ? "" : "cut off",
        ].filter(Boolean);
        this.once(() =>
          h("div", { class: "marker model-usage", "data-testid": "model-usage" }, `model call ${data.model} · ${parts.join(" · ")}`),
        );
        break;
      }
      case "budget.reached": {
        const data = event.data;
        const cap = data.limit === "cost_usd" ? `$${data.max_cost_usd}` : `${data.max_tokens} tokens`;
        const spent = `spent $${data.spent_cost_usd.toFixed(4)}, ${data.spent_tokens} tokens`;
        this.once(() =>
          h("div", { class: "marker budget-reached", "data-testid": "budget-reached" }, `${data.scope} budget of ${cap} reached (${spent}): call ${data.action}`),
        );
        break;
      }
      case "item.started":
      case "item.completed": {
        const item = event.data.item;
        const previous = this.items.get(item.item_id);
        this.items.set(item.item_id, { item, streamed: previous?.streamed ?? "", time });
        this.block(`item:${item.item_id}`, () => this.renderItem(item.item_id));
        break;
      }
      case "item.delta": {
        const entry = this.items.get(event.data.item_id);
        if (!entry) break;
        entry.streamed += event.data.delta;
        this.block(`item:${event.data.item_id}`, () => this.renderItem(event.data.item_id));
        break;
      }
      case "permission.requested":
      case "permission.resolved":
        this.permissions.set(event.data.permission_id, event);
        this.block(`req:${event.data.permission_id}`, () => this.renderPermission(event.data.permission_id));
        break;
      case "permission.decided": {
        const id = event.data.permission_id;
        this.decisions.set(id, [...(this.decisions.get(id) ?? []), event]);
        this.block(`req:${id}`, () => this.renderPermission(id));
        break;
      }
      case "question.requested":
      case "question.resolved":
        this.questions.set(event.data.question_id, event);
        this.block(`req:${event.data.question_id}`, () => this.renderQuestion(event.data.question_id));
        break;
      case "error": {
        const data = event.data;
        this.once(() =>
          h(
            "div",
            { class: "error-event" },
            h("strong", null, `error${data.code ? ` ${data.code}` : ""}: `),
            data.message,
            data.details !== undefined && data.details !== null ? h("pre", null, prettyJson(data.details)) : null,
          ),
        );
        break;
      }
      case "agent.unparsed": {
        const data = event.data;
        const raw = "raw" in event ? (event as { raw?: unknown }).raw : undefined;
        this.once(() =>
          h(
            "div",
            { class: "unparsed-event" },
            h("strong", null, "agent output not understood: "),
            `${data.error} at ${data.location}`,
            raw !== undefined ? h("pre", null, typeof raw === "string" ? raw : prettyJson(raw)) : null,
          ),
        );
        break;
      }
    }
  }

  private renderItem(id: string): HTMLElement {
    const entry = this.items.get(id)!;
    return renderItem(entry.item, entry.streamed, entry.time);
  }

  /** What the approval policy (and the client, for an `ask`) decided, a line each. */
  private renderDecisions(id: string): HTMLElement | null {
    const decisions = this.decisions.get(id) ?? [];
    if (decisions.length === 0) return null;
    return h(
      "div",
      { class: "policy-decisions" },
      decisions.map(({ data }) => {
        const subject = data.input?.command ?? data.input?.mcp ?? data.input?.paths?.join(", ") ?? "";
        return h(
          "div",
          { class: `policy-decision ${data.decision}`, "data-testid": "policy-decision" },
          h("span", { class: `badge ${data.decision}` }, data.decision),
          ` ${data.tool}${subject ? ` ${subject}` : ""} · ${data.reason}`,
        );
      }),
    );
  }

  private renderPermission(id: string): HTMLElement {
    const event = this.permissions.get(id);
    if (!event) {
      return h("section", { class: "request permission", "data-request-id": id }, this.renderDecisions(id));
    }
    const data = event.data;
    const pending = data.status === "requested";
    const buttons =
      pending && this.answers.open()
        ? h(
            "div",
            { class: "actions" },
            (["once", "always", "reject"] as const).map((reply) =>
              h(
                "button",
                {
                  class: reply === "reject" ? "danger" : "primary",
                  "data-reply": reply,
                  onclick: (click: Event) => {
                    (click.currentTarget as HTMLButtonElement).disabled = true;
                    void this.answers.permission(id, reply);
                  },
                },
                reply === "once" ? "Allow once" : reply === "always" ? "Allow always" : "Reject",
              ),
            ),
          )
        : null;
    return h(
      "section",
      { class: `request permission ${pending ? "pending" : "resolved"}`, "data-request-id": id },
      h("header", null, h("strong", null, "Permission "), h("code", null, data.action), " ", h("span", { class: `badge ${data.status}` }, data.status)),
      this.renderDecisions(id),
      data.metadata !== undefined && data.metadata !== null ? h("pre", null, prettyJson(data.metadata)) : null,
      buttons,
    );
  }

  private renderQuestion(id: string): HTMLElement {
    const event = this.questions.get(id)!;
    const data = event.data;
    const pending = data.status === "requested";
    const chosen = new Set<string>();
    const form =
      pending && this.answers.open()
        ? h(
            "div",
            { class: "actions" },
            data.options.map((option) =>
              h(
                "label",
                { class: "option" },
                h("input", {
                  type: "checkbox",
                  value: option,
                  onchange: (change: Event) => {
                    const box = change.currentTarget as HTMLInputElement;
                    if (box.checked) chosen.add(option);
                    else chosen.delete(option);
                  },
                }),
                option,
              ),
            ),
            h("button", { class: "primary", "data-answer": "", onclick: () => void this.answers.question(id, [[...chosen]]) }, "Answer"),
            h("button", { class: "danger", "data-reject": "", onclick: () => void this.answers.rejectQuestion(id) }, "Decline"),
          )
        : null;
    const response = "response" in data && data.response ? h("div", null, "answer: ", h("strong", null, data.response)) : null;
    return h(
      "section",
      { class: `request question ${pending ? "pending" : "resolved"}`, "data-request-id": id },
      h("header", null, h("strong", null, "Question "), h("span", { class: `badge ${data.status}` }, data.status)),
      h("div", { class: "prompt" }, data.prompt),
      response,
      form,
    );
  }
}
