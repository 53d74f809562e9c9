/**
 * Starts the daemon in any `Sandbox` and connects to it with the SDK.
 */
import { type Agentplex, connect, NetworkError } from "agentplex";
import type { Sandbox } from "./sandbox.js";
import { sleep, startDaemon, type Started, type StartOptions } from "./start.js";

/** A connected client and where it is connected. */
export interface Deployment extends Started {
  client: Agentplex;
}

/** `startDaemon`, then a client once the daemon answers through the provider's proxy. */
export async function deploy(sandbox: Sandbox, options: StartOptions = {}): Promise<Deployment> {
  const started = await startDaemon(sandbox, options);
  return { ...started, client: await connectWhenUp(started, options.timeoutMs ?? 60_000) };
}

/** Connects, trying again while nothing answers yet (a proxy may need a moment for a new port). */
export async function connectWhenUp(started: Started, timeoutMs = 60_000): Promise<Agentplex> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await connect({ baseUrl: started.url, token: started.token, headers: started.headers });
    } catch (error) {
      if (!(error instanceof NetworkError) || Date.now() > deadline) throw error;
      await sleep(500);
    }
  }
}
