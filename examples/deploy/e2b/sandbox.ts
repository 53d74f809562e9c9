/**
 * E2B (npm `e2b`): a Firecracker microVM per sandbox. Needs `E2B_API_KEY`. The default template
 * has `curl`; ports are reached at `https://<port>-<sandbox>.e2b.app` without further setup.
 */
import { Sandbox as E2BSandbox } from "e2b";
import type { Sandbox } from "../shared/sandbox.js";

/** A new E2B sandbox that lives for `timeoutMs` (or until `close()`). */
export async function createSandbox(timeoutMs = 30 * 60_000): Promise<Sandbox> {
  const sandbox = await E2BSandbox.create({ timeoutMs });
  return {
    // Rejects with a CommandExitError on a non-zero exit.
    run: async (command, envs) => (await sandbox.commands.run(command, { envs, timeoutMs: 0 })).stdout,
    spawn: async (command, envs) => {
      await sandbox.commands.run(command, { envs, background: true, timeoutMs: 0 });
    },
    expose: async (port) => ({ url: `https://${sandbox.getHost(port)}` }),
    close: async () => {
      await sandbox.kill();
    },
  };
}
