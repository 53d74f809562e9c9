// What the client scripts share: a prompt's turn read to its stop, and the
// text of the chunks of one kind.

/** Sends a prompt on an `ActiveSession` and reads every update until its stop. */
export async function turn(session, text) {
  const updates = [];
  const stopped = session.prompt(text);
  for (;;) {
    const message = await session.nextUpdate();
    if (message.kind === "stop") {
      await stopped;
      return { updates, stopReason: message.stopReason };
    }
    updates.push(message.update);
  }
}

/** The text of the updates of `kind` (`agent_message_chunk`...), joined. */
export const textOf = (updates, kind) =>
  updates.filter((u) => u.sessionUpdate === kind).map((u) => u.content.text).join("");
