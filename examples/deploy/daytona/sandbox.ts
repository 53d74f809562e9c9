/**
 * Daytona (npm `@daytonaio/sdk`). Needs `DAYTONA_API_KEY`. The sandbox is private: its preview
 * URL wants the preview token in the `x-daytona-preview-token` header (on top of the daemon's).
 */
import { Daytona } from "@daytonaio/sdk";
import { shellQuote } from "../shared/commands.js";
import type { Sandbox } from "../shared/sandbox.js";

/** A new Daytona sandbox, deleted by `close()`. */
export async function createSandbox(): Promise<Sandbox> {
  const daytona = new Daytona();
  const sandbox = await daytona.create({ public: false });
  const session = "agentplex";
  await sandbox.process.createSession(session);
  return {
    run: async (command, env) => {
      const response = await sandbox.process.executeCommand(`sh -c ${shellQuote(command)}`, undefined, env);
      if (response.exitCode !== 0) throw new Error(`\`${command}\` exited with ${response.exitCode}: ${response.result}`);
      return response.result;
    },
    // A session keeps its background process; `export` keeps the token off the command line.
    spawn: async (command, env = {}) => {
      const exports = Object.entries(env).map(([key, value]) => `export ${key}=${shellQuote(value)}`);
      await sandbox.process.executeSessionCommand(session, { command: [...exports, command].join("; "), runAsync: true });
    },
    expose: async (port) => {
      const link = await sandbox.getPreviewLink(port);
      return { url: link.url, headers: { "x-daytona-preview-token": link.token } };
    },
    close: () => sandbox.delete(),
  };
}
