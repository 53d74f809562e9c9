/**
 * The one thing each provider example implements: a sandbox the shared code can run shell
 * commands in and reach a port of. `local/sandbox.ts` implements it on this machine, so the
 * shared part (install, start, connect, drive) runs in CI exactly as it runs in a provider's
 * sandbox.
 */

/** Where the daemon's port is reached from outside the sandbox. */
export interface Endpoint {
  /** Base URL of the daemon, e.g. `https://2468-abc.e2b.app`. */
  url: string;
  /** Headers the provider's proxy wants on every request (Daytona's preview token). */
  headers?: Record<string, string>;
}

/** A running sandbox of some provider. */
export interface Sandbox {
  /** Runs a shell command (`sh -c`) to its end and returns its stdout; rejects on a non-zero exit. */
  run(command: string, env?: Record<string, string>): Promise<string>;
  /** Starts a long-running shell command in the background and returns at once. */
  spawn(command: string, env?: Record<string, string>): Promise<void>;
  /** Makes `port` reachable from here (when the provider needs that) and says where. */
  expose(port: number): Promise<Endpoint>;
  /** Stops the sandbox (and everything in it). */
  close(): Promise<void>;
}
