/**
 * A Server-Sent Events parser over a fetch body (the WHATWG event-stream format: LF, CRLF or CR
 * line ends, `data`/`id`/`event` fields, comments). `EventSource` is not used because it cannot
 * send an `Authorization` header.
 */

/** One dispatched SSE message. */
export interface SseMessage {
  /** The `id` field of this message, if it had one. */
  id?: string;
  /** The `event` field; `message` when absent. */
  event: string;
  /** The `data` lines joined with `\n`. */
  data: string;
}

/**
 * Yields the messages of an event stream as they complete. An incomplete message at the end of
 * the stream is dropped, as the format requires. `onChunk` is called for every chunk read
 * (keep-alive comments included), for idle detection. Returning early cancels the body.
 */
export async function* parseSse(
  body: ReadableStream<Uint8Array>,
  onChunk?: () => void,
): AsyncGenerator<SseMessage, void, undefined> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let data: string[] = [];
  let id: string | undefined;
  let event = "";

  const takeLine = (line: string): SseMessage | undefined => {
    if (line === "") {
      const message =
        data.length > 0
          ? { ...(id !== undefined ? { id } : {}), event: event || "message", data: data.join("\n") }
          : undefined;
      data = [];
      id = undefined;
      event = "";
      return message;
    }
    if (line.startsWith(":")) return undefined;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") data.push(value);
    else if (field === "id" && !value.includes("\0")) id = value;
    else if (field === "event") event = value;
    return undefined;
  };

  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      onChunk?.();
      buffer += decoder.decode(value, { stream: true });
      let start = 0;
      for (;;) {
        const lf = buffer.indexOf("\n", start);
        const cr = buffer.indexOf("\r", start);
        let end: number;
        if (cr !== -1 && (lf === -1 || cr < lf)) {
          // A CR at the end of the buffer may be the first half of a CRLF: wait for more.
          if (cr === buffer.length - 1) break;
          end = cr;
        } else if (lf !== -1) {
          end = lf;
        } else {
          break;
        }
        const line = buffer.slice(start, end);
        start = end + (buffer[end] === "\r" && buffer[end + 1] === "\n" ? 2 : 1);
        const message = takeLine(line);
        if (message) yield message;
      }
      buffer = buffer.slice(start);
    }
  } finally {
    // Stops the download when the consumer leaves early; harmless after the end.
    await reader.cancel().catch(() => undefined);
  }
}
