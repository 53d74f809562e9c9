/** Copy-as-curl: a shell command that repeats a logged request. */
import type { LogEntry } from "./api.js";

/** Quotes a word for a POSIX shell. */
export function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * The curl command for `entry`. With `token` the token is written into the command; without,
 * a request that carried one reads it from `$AGENTPLEX_TOKEN` when the command runs.
 */
export function toCurl(entry: LogEntry, token: string | undefined): string {
  const words = ["curl", "-sS"];
  if (entry.headers["accept"] === "text/event-stream") words.push("-N");
  if (entry.method !== "GET") words.push("-X", entry.method);
  words.push(shellQuote(entry.url));
  for (const [name, value] of Object.entries(entry.headers)) words.push("-H", shellQuote(`${name}: ${value}`));
  if (entry.authorized) {
    words.push("-H", token ? shellQuote(`Authorization: Bearer ${token}`) : '"Authorization: Bearer $AGENTPLEX_TOKEN"');
  }
  if (entry.body !== undefined) words.push("--data-raw", shellQuote(entry.body));
  return words.join(" ");
}
