/**
 * `Session`: one daemon session. Sends messages, reads the transcript (a page, or a live
 * iterator that reconnects without losing or repeating an event), answers permission requests
 * and questions, cancels and terminates; `prompt` runs one turn and returns what it produced.
 */
import { sessionInfo, type Agentplex } from "./client.js";
import { AgentplexError } from "./errors.js";
import { anySignal, callOptions, networkError, seg, sleep, transportOf, type RequestOptions } from "./http.js";
import {
  backoff,
  DEFAULT_IDLE_TIMEOUT_MS,
  DEFAULT_STREAM_RETRIES,
  DEFAULT_STREAM_RETRY_DELAY_MS,
  retryable,
  watchIdle,
} from "./reconnect.js";
import { parseSse, type SseMessage } from "./sse.js";
import type {
  ApprovalPolicy,
  BudgetLimits,
  CreateSessionResponse,
  EventOf,
  EventsResponse,
  MessagePart,
  MessageRequest,
  PermissionEventData,
  PermissionReply,
  QuestionEventData,
  SessionChoices,
  SessionInfo,
  SessionModes,
  UniversalEvent,
  UniversalItem,
  Usage,
} from "./types.js";

/** A message: text, a list of parts, or the whole request body (0.1.x `message` + `attachments`). */
export type MessageInput = string | MessagePart[] | MessageRequest;

type MaybePromise<T> = T | Promise<T>;

/**
 * Called for each `permission.requested` seen while iterating `events()` or during `prompt()`.
 * Return `once`, `always` or `reject` to reply; return nothing to leave the request pending
 * (answer it later with `replyPermission`).
 */
export type PermissionHandler = (
  request: PermissionEventData,
  event: EventOf<"permission.requested">,
) => MaybePromise<PermissionReply | undefined | void>;

/**
 * An answer to a question: one list of chosen options per prompt (`[["Red"]]`), a flat list
 * for a single prompt (`["Red"]`), or `"reject"` to decline.
 */
export type QuestionAnswer = string[][] | string[] | "reject";

/**
 * Called for each `question.requested` seen while iterating `events()` or during `prompt()`.
 * Return the answers (or `"reject"`) to reply; return nothing to leave the question pending.
 */
export type QuestionHandler = (
  request: QuestionEventData,
  event: EventOf<"question.requested">,
) => MaybePromise<QuestionAnswer | undefined | void>;

/** The listeners of `session.on(...)`, by event name. */
export interface SessionListeners {
  permission: PermissionHandler;
  question: QuestionHandler;
}

/**
 * Handlers for the requests that need the client, given to one `events()` or `prompt()` call.
 * The call's handler is asked first, then the session's listeners (`session.on`).
 */
export interface RequestHandlers {
  onPermission?: PermissionHandler;
  onQuestion?: QuestionHandler;
}

export interface GetEventsOptions extends RequestOptions {
  /** The last sequence already seen; events after it are returned (default 0: from the first). */
  offset?: number;
  /** Most events to return (default: all). */
  limit?: number;
  /** Include each event's native payload as `raw`. */
  includeRaw?: boolean;
}

export interface EventsOptions extends RequestOptions, RequestHandlers {
  /** The last sequence already seen; iteration starts after it (default 0: from the first). */
  offset?: number;
  /** Include each event's native payload as `raw`. */
  includeRaw?: boolean;
  /**
   * Reconnect attempts in a row that may fail (no connection, or a connection closed before
   * it brought any data) before the iterator throws a `stream_error`. Default 10.
   */
  maxRetries?: number;
  /** Delay before the first reconnect after a failure; doubles up to 5 s. Default 250 ms. */
  retryDelayMs?: number;
  /**
   * A connection silent for this long (the daemon sends a keep-alive every 15 s) is treated as
   * dropped and reopened. Default 45 000 ms; 0 disables.
   */
  idleTimeoutMs?: number;
}

/** Options of `stream`: those of `events()` but the offset (the turn's events come). */
export interface StreamOptions extends Omit<EventsOptions, "offset"> {}

/** Options of `prompt`: those of `stream`, and a callback for each event. */
export interface PromptOptions extends StreamOptions {
  /** Called with every event of the turn as it arrives (deltas included). */
  onEvent?: (event: UniversalEvent) => MaybePromise<void>;
}

/** What `prompt` resolves with. */
export interface PromptResult {
  /** Every event of the turn, from `turn.started` to `turn.ended` (or `session.ended`). */
  events: UniversalEvent[];
  /** The items the turn completed (`item.completed`), in order; the user's message first. */
  items: UniversalItem[];
  /**
   * The text of the turn's completed assistant messages: each message's text parts joined,
   * messages separated by a blank line.
   */
  text: string;
  /** The turn's id, when the agent gave one. */
  turnId?: string;
  /** Token usage from `turn.ended`, when the agent reports it. */
  usage?: Usage;
  /** `turn_ended`, or `session_ended` when the session ended before its turn did. */
  stopReason: "turn_ended" | "session_ended";
  /** The sequence of the turn's last event: the `offset` to follow the session from. */
  lastSequence: number;
}

/** Turns a `MessageInput` into the request body. */
export function toMessageRequest(input: MessageInput): MessageRequest {
  if (typeof input === "string") return { message: input };
  if (Array.isArray(input)) return { parts: input };
  return input;
}

function toAnswers(answer: string[][] | string[]): string[][] {
  return answer.every((a) => Array.isArray(a)) ? (answer as string[][]) : [answer as string[]];
}

function parseEvent(message: SseMessage): UniversalEvent | undefined {
  if (!message.data) return undefined;
  try {
    return JSON.parse(message.data) as UniversalEvent;
  } catch (error) {
    throw AgentplexError.create(
      "unexpected_response",
      200,
      `an SSE message is not an event: ${message.data.slice(0, 200)}`,
      {},
      error,
    );
  }
}

/** Runs `reply`, ignoring that the request is gone (answered elsewhere, cancelled, ended). */
async function replyIfPending(reply: Promise<void>): Promise<void> {
  try {
    await reply;
  } catch (error) {
    if (AgentplexError.is(error, "request_not_found") || AgentplexError.is(error, "session_ended")) return;
    throw error;
  }
}

/** Whether the event ends a turn (or the whole session). */
function endsTurn(event: UniversalEvent): boolean {
  return event.type === "turn.ended" || event.type === "session.ended";
}

function requestKey(event: UniversalEvent): string | undefined {
  switch (event.type) {
    case "permission.requested":
    case "permission.resolved":
      return `permission:${event.data.permission_id}`;
    case "question.requested":
    case "question.resolved":
      return `question:${event.data.question_id}`;
    default:
      return undefined;
  }
}

export class Session {
  /** The session id. */
  readonly id: string;
  readonly client: Agentplex;
  /** The session as last listed (`getSession`, `refresh`); undefined until then. */
  info: SessionInfo | undefined;
  /** The daemon's answer to the creation, for a session made by `createSession`. */
  readonly created: CreateSessionResponse | undefined;
  readonly #listeners: { permission: PermissionHandler[]; question: QuestionHandler[] } = {
    permission: [],
    question: [],
  };

  constructor(
    client: Agentplex,
    id: string,
    init: { info?: SessionInfo; created?: CreateSessionResponse } = {},
  ) {
    this.client = client;
    this.id = id;
    this.info = init.info;
    this.created = init.created;
  }

  get #path(): string {
    return `/v1/sessions/${seg(this.id)}`;
  }

  /**
   * Adds a listener of the permission requests (`"permission"`) or questions (`"question"`) that
   * `events()` and `prompt()` see on this session. Several may be added. Who answers: the
   * call's own `onPermission`/`onQuestion` is asked first, then the listeners in the order they
   * were added, one at a time; the first to return a reply answers the request, and the ones
   * after it are not called for that request. A listener that returns nothing only watches.
   * When nobody replies the request stays pending: answer it with `replyPermission`,
   * `replyQuestion` or `rejectQuestion`. A listener that throws makes the iteration (or
   * `prompt()`) reject with its error. Adding the same function twice adds it once.
   */
  on<K extends keyof SessionListeners>(event: K, listener: SessionListeners[K]): this {
    const list = this.#listeners[event] as Array<SessionListeners[K]>;
    if (!list.includes(listener)) list.push(listener);
    return this;
  }

  /** Removes a listener added with `on`. */
  off<K extends keyof SessionListeners>(event: K, listener: SessionListeners[K]): this {
    const list = this.#listeners[event] as Array<SessionListeners[K]>;
    const index = list.indexOf(listener);
    if (index !== -1) list.splice(index, 1);
    return this;
  }

  /** `on("permission", handler)`; returns a function that removes it. */
  onPermission(handler: PermissionHandler): () => void {
    this.on("permission", handler);
    return () => this.off("permission", handler);
  }

  /** `on("question", handler)`; returns a function that removes it. */
  onQuestion(handler: QuestionHandler): () => void {
    this.on("question", handler);
    return () => this.off("question", handler);
  }

  /** `off("permission", handler)`. */
  offPermission(handler: PermissionHandler): this {
    return this.off("permission", handler);
  }

  /** `off("question", handler)`. */
  offQuestion(handler: QuestionHandler): this {
    return this.off("question", handler);
  }

  /** Reads the session again (`GET /v1/sessions/{id}`) and updates `info`. */
  async refresh(options: RequestOptions = {}): Promise<SessionInfo> {
    this.info = await sessionInfo(this.client, this.id, options);
    return this.info;
  }

  /**
   * Sends a message (`POST .../messages`). It starts a turn at once, or waits in the queue
   * while a turn runs. Resolves when the daemon accepted it.
   */
  async send(input: MessageInput, options: RequestOptions = {}): Promise<void> {
    await transportOf(this.client).none("POST", `${this.#path}/messages`, {
      body: toMessageRequest(input),
      ...callOptions(options),
    });
  }

  /** A page of the transcript (`GET .../events`). */
  async getEvents(options: GetEventsOptions = {}): Promise<EventsResponse> {
    return transportOf(this.client).json<EventsResponse>("GET", `${this.#path}/events`, {
      query: {
        offset: options.offset,
        limit: options.limit,
        includeRaw: options.includeRaw || undefined,
      },
      ...callOptions(options),
    });
  }

  /**
   * The transcript after `offset`, then live events as they happen (`GET .../events/sse`).
   * A dropped connection is reopened with `Last-Event-ID` = the last sequence yielded, so no
   * event is repeated or skipped. Ends after `session.ended` (at once for a session that
   * ended at or before `offset`). Permission and question handlers run before their event is
   * yielded; requests already resolved before the iteration started are not handed to them.
   */
  async *events(options: EventsOptions = {}): AsyncGenerator<UniversalEvent, void, undefined> {
    const settled = this.#hasHandlers(options)
      ? await this.#settledRequests(options.offset ?? 0, options)
      : new Set<string>();
    for await (const event of this.#follow(options)) {
      await this.#answer(event, options, settled);
      yield event;
    }
  }

  /**
   * Sends `input` and yields the events of its turn as they come, until `turn.ended` (or
   * `session.ended`): `POST .../messages/stream`, then `.../events/sse` after a request that
   * needs the client (or a dropped connection). Permission requests and questions go to the
   * handlers (the call's, else the session's) before their event is yielded; without one, the
   * turn waits until someone replies. Aborting the signal stops the iteration; it does not
   * cancel the turn (use `cancel()`).
   */
  async *stream(input: MessageInput, options: StreamOptions = {}): AsyncGenerator<UniversalEvent, void, undefined> {
    const { signal, includeRaw } = options;
    const settled = new Set<string>();
    let last: UniversalEvent | undefined;
    const connection = anySignal([signal]);
    const idle = watchIdle(connection.controller, options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS);
    try {
      const response = await transportOf(this.client).stream("POST", `${this.#path}/messages/stream`, {
        body: toMessageRequest(input),
        query: { includeRaw: includeRaw || undefined },
        signal: connection.signal,
        timeoutMs: options.timeoutMs,
      });
      const messages = parseSse(response.body!, idle.touch);
      try {
        for (;;) {
          let next: IteratorResult<SseMessage>;
          try {
            next = await messages.next();
          } catch (error) {
            if (signal?.aborted) throw signal.reason;
            break; // dropped: follow the rest below
          }
          if (next.done) break;
          const event = parseEvent(next.value);
          if (!event) continue;
          await this.#answer(event, options, settled);
          last = event;
          yield event;
          if (endsTurn(event)) return;
        }
      } finally {
        await messages.return(undefined);
      }
    } finally {
      idle.stop();
      connection.controller.abort();
      connection.dispose();
    }
    if (last === undefined) {
      // Nothing of the turn came: the session ended before the message's turn started, or
      // the connection dropped while the message waited in the queue.
      throw await this.#nothingCame(signal);
    }
    for await (const event of this.#follow({ ...options, offset: last.sequence })) {
      await this.#answer(event, options, settled);
      yield event;
      if (endsTurn(event)) return;
    }
  }

  /**
   * Sends `input` and resolves when its turn ends, with the turn's events, completed items and
   * assistant text: `stream()` collected. `onEvent` sees every event as it arrives (deltas
   * included).
   */
  async prompt(input: MessageInput, options: PromptOptions = {}): Promise<PromptResult> {
    const events: UniversalEvent[] = [];
    for await (const event of this.stream(input, options)) {
      events.push(event);
      await options.onEvent?.(event);
    }
    return summarize(events);
  }

  /** Answers a permission request (`POST .../permissions/{id}/reply`). */
  async replyPermission(permissionId: string, reply: PermissionReply, options: RequestOptions = {}): Promise<void> {
    await transportOf(this.client).none("POST", `${this.#path}/permissions/${seg(permissionId)}/reply`, {
      body: { reply },
      ...callOptions(options),
    });
  }

  /**
   * Answers a question (`POST .../questions/{id}/reply`): one list of chosen options per
   * prompt, or a flat list for a single prompt.
   */
  async replyQuestion(questionId: string, answers: string[][] | string[], options: RequestOptions = {}): Promise<void> {
    await transportOf(this.client).none("POST", `${this.#path}/questions/${seg(questionId)}/reply`, {
      body: { answers: toAnswers(answers) },
      ...callOptions(options),
    });
  }

  /** Declines a question (`POST .../questions/{id}/reject`). */
  async rejectQuestion(questionId: string, options: RequestOptions = {}): Promise<void> {
    await transportOf(this.client).none("POST", `${this.#path}/questions/${seg(questionId)}/reject`, {
      ...callOptions(options),
    });
  }

  /** Interrupts the running turn and keeps the session (`POST .../cancel`). */
  async cancel(options: RequestOptions = {}): Promise<void> {
    await transportOf(this.client).none("POST", `${this.#path}/cancel`, callOptions(options));
  }

  /**
   * Replaces the caps on what the session's model calls may spend (`PUT .../budget`; the
   * daemon needs `--gateway`). In force at once: raising a reached cap lets the calls go on.
   */
  async setBudget(limits: BudgetLimits, options: RequestOptions = {}): Promise<BudgetLimits> {
    return transportOf(this.client).json<BudgetLimits>("PUT", `${this.#path}/budget`, {
      body: limits,
      ...callOptions(options),
    });
  }

  /**
   * Replaces the session's approval policy (`PUT .../policy`): permission requests asked
   * from now on are decided with it. A policy that cannot be used is refused
   * (`InvalidRequestError`, naming the rule and field). Answers the policy as kept.
   */
  async setPolicy(policy: ApprovalPolicy, options: RequestOptions = {}): Promise<ApprovalPolicy> {
    return transportOf(this.client).json<ApprovalPolicy>("PUT", `${this.#path}/policy`, {
      body: policy,
      ...callOptions(options),
    });
  }

  /**
   * The session's agent mode, permission mode, model and variant, and what its running agent
   * offers to change them to (`GET .../modes`: `offered`, its own modes and models, once an
   * agent that says so has run).
   */
  async getModes(options: RequestOptions = {}): Promise<SessionChoices> {
    return transportOf(this.client).json<SessionChoices>("GET", `${this.#path}/modes`, callOptions(options));
  }

  /**
   * Changes the session's agent mode, permission mode, model or its variant (reasoning
   * effort...) while it runs (`PUT .../modes`; a field left out keeps its value), from the
   * next message on. Refused with `mode_not_supported` for a mode the agent does not have or
   * an agent that cannot change modes (or its model, or its variant) in a running session.
   * Answers both modes, the model and the variant.
   */
  async setModes(modes: SessionModes, options: RequestOptions = {}): Promise<SessionModes> {
    return transportOf(this.client).json<SessionModes>("PUT", `${this.#path}/modes`, {
      body: modes,
      ...callOptions(options),
    });
  }

  /** Ends the session and kills its processes (`POST .../terminate`). */
  async terminate(options: RequestOptions = {}): Promise<void> {
    await transportOf(this.client).none("POST", `${this.#path}/terminate`, callOptions(options));
  }

  /** Removes the session and its transcript for good, ending it first if it runs (`DELETE /v1/sessions/{id}`). */
  async delete(options: RequestOptions = {}): Promise<void> {
    await transportOf(this.client).none("DELETE", this.#path, callOptions(options));
  }

  /** Why a turn stream brought no event: the session ended, or the stream failed. */
  async #nothingCame(signal: AbortSignal | undefined): Promise<AgentplexError> {
    const info = await this.refresh({ signal });
    if (info.ended) {
      return AgentplexError.create("session_ended", 409, `session "${this.id}" ended before the message's turn started`, {
        sessionId: this.id,
      });
    }
    return AgentplexError.create("stream_error", 0, `the turn stream of session "${this.id}" ended before the turn started`, {
      sessionId: this.id,
    });
  }

  #hasHandlers(options: RequestHandlers): boolean {
    return Boolean(
      options.onPermission ?? options.onQuestion ?? (this.#listeners.permission[0] || this.#listeners.question[0]),
    );
  }

  /** The requests resolved in the transcript after `offset`: handlers must not see them. */
  async #settledRequests(offset: number, options: RequestOptions): Promise<Set<string>> {
    const page = await this.getEvents({ offset, ...callOptions(options) });
    const settled = new Set<string>();
    for (const event of page.events) {
      if (event.type === "permission.resolved" || event.type === "question.resolved") {
        settled.add(requestKey(event)!);
      }
    }
    return settled;
  }

  /** Hands a request to its handler and sends the handler's reply. */
  async #answer(event: UniversalEvent, options: RequestHandlers & RequestOptions, settled: Set<string>) {
    const key = requestKey(event);
    if (key === undefined) return;
    if (event.type === "permission.resolved" || event.type === "question.resolved" || settled.has(key)) {
      settled.add(key);
      return;
    }
    const signal = options.signal;
    if (event.type === "permission.requested") {
      // A copy: a listener may add or remove listeners.
      const handlers = [...(options.onPermission ? [options.onPermission] : []), ...this.#listeners.permission];
      let reply: PermissionReply | undefined | void;
      for (const handler of handlers) {
        reply = await handler(event.data, event);
        if (reply !== undefined) break;
      }
      if (reply === undefined) return;
      settled.add(key);
      await replyIfPending(this.replyPermission(event.data.permission_id, reply, { signal }));
    } else if (event.type === "question.requested") {
      const handlers = [...(options.onQuestion ? [options.onQuestion] : []), ...this.#listeners.question];
      let answer: QuestionAnswer | undefined | void;
      for (const handler of handlers) {
        answer = await handler(event.data, event);
        if (answer !== undefined) break;
      }
      if (answer === undefined) return;
      settled.add(key);
      const id = event.data.question_id;
      await replyIfPending(
        answer === "reject" ? this.rejectQuestion(id, { signal }) : this.replyQuestion(id, answer, { signal }),
      );
    }
  }

  /**
   * The SSE transcript after `options.offset`, reconnecting with `Last-Event-ID` from the last
   * sequence yielded; fills a gap from `GET .../events` should one ever appear.
   */
  async *#follow(options: EventsOptions): AsyncGenerator<UniversalEvent, void, undefined> {
    const { signal, includeRaw } = options;
    const maxRetries = options.maxRetries ?? DEFAULT_STREAM_RETRIES;
    const retryDelayMs = options.retryDelayMs ?? DEFAULT_STREAM_RETRY_DELAY_MS;
    const idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    let last = options.offset ?? 0;
    let failures = 0;
    let lastError: unknown;

    let delay = 0;

    for (;;) {
      signal?.throwIfAborted();
      if (failures > maxRetries) {
        throw AgentplexError.create(
          "stream_error",
          lastError instanceof AgentplexError ? lastError.status : 0,
          `the event stream of session "${this.id}" failed ${failures} times in a row` +
            (lastError instanceof Error ? `; last: ${lastError.message}` : ""),
          { sessionId: this.id },
          lastError,
        );
      }
      if (delay > 0) await sleep(delay, signal);

      const connection = anySignal([signal]);
      const idle = watchIdle(connection.controller, idleTimeoutMs);
      // `alive`: the connection brought bytes (events or keep-alives), so it was no failure.
      let alive = false;
      let progressed = false;
      try {
        let response: Response;
        try {
          response = await transportOf(this.client).stream("GET", `${this.#path}/events/sse`, {
            query: { offset: last, includeRaw: includeRaw || undefined },
            headers: last > 0 ? { "last-event-id": String(last) } : {},
            signal: connection.signal,
            timeoutMs: options.timeoutMs,
            maxRetries: 0, // reconnects are this loop's

          });
        } catch (error) {
          if (signal?.aborted) throw signal.reason;
          if (!retryable(error)) throw error;
          lastError = error;
          failures++;
          delay = backoff(retryDelayMs, failures);
          continue;
        }
        const messages = parseSse(response.body!, () => {
          idle.touch();
          alive = true;
          failures = 0;
        });
        try {
          for (;;) {
            let next: IteratorResult<SseMessage>;
            try {
              next = await messages.next();
            } catch (error) {
              if (signal?.aborted) throw signal.reason;
              lastError = networkError(error, undefined, "reading the event stream");
              break;
            }
            if (next.done) break;
            const event = parseEvent(next.value);
            if (!event || event.sequence <= last) continue;
            let batch = [event];
            if (event.sequence > last + 1) {
              try {
                batch = [...(await this.#missing(last, event.sequence, options)), event];
              } catch (error) {
                if (signal?.aborted) throw signal.reason;
                if (!retryable(error)) throw error;
                lastError = error;
                break; // reconnect from `last`: the stream sends the missing events again
              }
            }
            for (const e of batch) {
              last = e.sequence;
              progressed = true;
              yield e;
              if (e.type === "session.ended") return;
            }
          }
        } finally {
          await messages.return(undefined);
        }
      } finally {
        idle.stop();
        connection.controller.abort();
        connection.dispose();
      }

      // The stream ended or dropped before `session.ended`.
      if (!progressed) {
        // Nothing new came: the session may have ended at or before `last`.
        try {
          const info = await this.refresh({ signal });
          if (info.ended && info.eventCount <= last) return;
        } catch (error) {
          if (signal?.aborted) throw signal.reason;
          if (!retryable(error)) throw error;
          lastError = error;
          alive = false; // the daemon is unreachable: count a failure
        }
      }
      if (alive) {
        delay = progressed ? 0 : retryDelayMs;
      } else {
        lastError ??= AgentplexError.create("stream_error", 0, "the event stream closed without any data");
        failures++;
        delay = backoff(retryDelayMs, failures);
      }
    }
  }

  /** Events strictly between `after` and `before`, from `GET .../events`. */
  async #missing(after: number, before: number, options: EventsOptions): Promise<UniversalEvent[]> {
    const page = await this.getEvents({
      offset: after,
      limit: before - after - 1,
      includeRaw: options.includeRaw,
      ...callOptions(options),
    });
    return page.events.filter((e) => e.sequence > after && e.sequence < before);
  }
}

function summarize(events: UniversalEvent[]): PromptResult {
  const items: UniversalItem[] = [];
  let turnId: string | undefined;
  let usage: Usage | undefined;
  for (const event of events) {
    if (event.type === "item.completed") items.push(event.data.item);
    if ((event.type === "turn.started" || event.type === "turn.ended") && event.data.turn_id) {
      turnId ??= event.data.turn_id;
    }
    if (event.type === "turn.ended" && event.data.usage) usage = event.data.usage;
  }
  const text = items
    .filter((item) => item.kind === "message" && item.role === "assistant")
    .map((item) =>
      item.content
        .map((part) => (part.type === "text" ? part.text : ""))
        .join(""),
    )
    .filter((t) => t.length > 0)
    .join("\n\n");
  const lastEvent = events[events.length - 1]!;
  return {
    events,
    items,
    text,
    ...(turnId !== undefined ? { turnId } : {}),
    ...(usage !== undefined ? { usage } : {}),
    stopReason: lastEvent.type === "session.ended" ? "session_ended" : "turn_ended",
    lastSequence: lastEvent.sequence,
  };
}
