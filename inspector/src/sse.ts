/**
 * Server-Sent Events over `fetch` (EventSource cannot send the token header), and a
 * session follower that resumes from the last sequence it saw after a dropped connection.
 */
import { api, seg } from "./api.js";
import type { UniversalEvent } from "./types.js";

/** One SSE message. */
export interface SseMessage {
  id?: string;
  event?: string;
  data: string;
}

/** Reads an SSE body, calling `onMessage` for each message, until it ends. */
export async function readSse(response: Response, onMessage: (message: SseMessage) => void): Promise<void> {
  if (!response.body) return;
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let current: SseMessage = { data: "" };
  let hasData = false;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let newline: number;
    while ((newline = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, newline).replace(/\r$/, "");
      buffer = buffer.slice(newline + 1);
      if (line === "") {
        if (hasData) onMessage(current);
        current = { data: "" };
        hasData = false;
        continue;
      }
      if (line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const text = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "data") {
        current.data = hasData ? `${current.data}\n${text}` : text;
        hasData = true;
      } else if (field === "id") current.id = text;
      else if (field === "event") current.event = text;
    }
  }
}

/** The state of a follower, shown on the session page. */
export type FollowState = "connecting" | "live" | "reconnecting" | "ended" | "stopped";

/**
 * Follows a session's events from `after` (a sequence), reconnecting with `offset` set to the
 * last sequence received until the session ends or `stop` is called.
 */
export class SessionFollower {
  private controller = new AbortController();
  private stopped = false;
  last: number;

  constructor(
    private readonly sessionId: string,
    after: number,
    private readonly onEvents: (events: UniversalEvent[]) => void,
    private readonly onState: (state: FollowState, detail?: string) => void,
  ) {
    this.last = after;
    void this.run();
  }

  /** Stops following. */
  stop(): void {
    this.stopped = true;
    this.controller.abort();
    this.onState("stopped");
  }

  /** Drops the current connection (as a network failure would); the follower reconnects. */
  drop(): void {
    this.controller.abort();
  }

  private async run(): Promise<void> {
    let delay = 250;
    while (!this.stopped) {
      this.controller = new AbortController();
      this.onState(this.last > 0 && delay > 250 ? "reconnecting" : "connecting");
      let ended = false;
      try {
        const path = `/v1/sessions/${seg(this.sessionId)}/events/sse?offset=${this.last}&include_raw=true`;
        const { response, entry } = await api.send("GET", path, {
          accept: "text/event-stream",
          signal: this.controller.signal,
        });
        entry.streaming = true;
        this.onState("live");
        delay = 250;
        let batch: UniversalEvent[] = [];
        let scheduled = false;
        const flush = () => {
          scheduled = false;
          const events = batch;
          batch = [];
          if (events.length) this.onEvents(events);
        };
        try {
          await readSse(response, (message) => {
            const event = JSON.parse(message.data) as UniversalEvent;
            if (event.sequence <= this.last) return;
            this.last = event.sequence;
            if (event.type === "session.ended") ended = true;
            batch.push(event);
            if (!scheduled) {
              scheduled = true;
              queueMicrotask(flush);
            }
          });
        } finally {
          flush();
          entry.streamMs = Date.now() - entry.startedAt;
          api.changed();
        }
      } catch (error) {
        if (this.stopped) return;
        this.onState("reconnecting", error instanceof Error ? error.message : String(error));
      }
      if (ended) {
        this.onState("ended");
        return;
      }
      if (this.stopped) return;
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, 5000);
    }
  }
}
