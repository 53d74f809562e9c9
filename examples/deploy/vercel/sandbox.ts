/**
 * Vercel Sandbox (npm `@vercel/sandbox`). Authenticates with `VERCEL_OIDC_TOKEN` (`vercel env
 * pull` writes it) or `VERCEL_TOKEN` + `VERCEL_TEAM_ID` + `VERCEL_PROJECT_ID`. Ports are declared
 * when the sandbox is created and served at `https://<subdomain>.vercel.run`.
 */
import { Sandbox as VercelSandbox } from "@vercel/sandbox";
import { PORT } from "../shared/commands.js";
import type { Sandbox } from "../shared/sandbox.js";

/** A new Vercel sandbox with the daemon's port routed, stopped by `close()`. */
export async function createSandbox(timeoutMs = 30 * 60_000): Promise<Sandbox> {
  const sandbox = await VercelSandbox.create({ ports: [PORT], timeout: timeoutMs });
  return {
    run: async (command, env) => {
      const result = await sandbox.runCommand({ cmd: "sh", args: ["-c", command], env });
      if (result.exitCode !== 0) throw new Error(`\`${command}\` exited with ${result.exitCode}: ${await result.stderr()}`);
      return result.stdout();
    },
    spawn: async (command, env) => {
      await sandbox.runCommand({ cmd: "sh", args: ["-c", command], env, detached: true });
    },
    expose: async (port) => ({ url: sandbox.domain(port) }),
    close: async () => {
      await sandbox.stop();
    },
  };
}
