/**
 * Cloudflare Sandbox (npm `@cloudflare/sandbox`), inside a Worker: a container behind a Durable
 * Object. The image (./Dockerfile) has the binary. Preview URLs need the Worker on a custom
 * domain with a wildcard DNS record (`*.example.com`); `hostname` is that domain.
 */
import { getSandbox, type Sandbox as CloudflareSandbox } from "@cloudflare/sandbox";
import type { Sandbox } from "../shared/sandbox.js";

/** The sandbox `id` of the `Sandbox` Durable Object namespace, created on first use. */
export function openSandbox(namespace: DurableObjectNamespace<CloudflareSandbox>, id: string, hostname: string): Sandbox {
  const sandbox = getSandbox(namespace, id);
  return {
    run: async (command, env) => {
      const result = await sandbox.exec(command, { env });
      if (!result.success) throw new Error(`\`${command}\` exited with ${result.exitCode}: ${result.stderr}`);
      return result.stdout;
    },
    spawn: async (command, env) => {
      await sandbox.startProcess(command, { env });
    },
    expose: async (port) => ({ url: (await sandbox.exposePort(port, { hostname })).url }),
    close: () => sandbox.destroy(),
  };
}
