/**
 * Modal (npm `modal`, Node 22+). Needs `MODAL_TOKEN_ID` and `MODAL_TOKEN_SECRET` (or
 * `~/.modal.toml`). The binary is installed when the image is built, by the same install
 * command (from the release at `$AGENTPLEX_BASE_URL`), so a sandbox starts with it; the port is
 * published through an encrypted tunnel.
 */
import { ModalClient } from "modal";
import { installCommand, PORT } from "../shared/commands.js";
import { releaseUrl } from "../shared/main.js";
import type { Sandbox } from "../shared/sandbox.js";

/** A new Modal sandbox of the app `agentplex`, from an image with the daemon installed. */
export async function createSandbox(timeoutMs = 30 * 60_000): Promise<Sandbox> {
  const modal = new ModalClient();
  const app = await modal.apps.fromName("agentplex", { createIfMissing: true });
  const image = modal.images
    .fromRegistry("debian:bookworm-slim")
    .dockerfileCommands([
      "RUN apt-get update && apt-get install -y --no-install-recommends curl ca-certificates && rm -rf /var/lib/apt/lists/*",
      `RUN ${installCommand(releaseUrl())}`,
    ]);
  const sandbox = await modal.sandboxes.create(app, image, { encryptedPorts: [PORT], timeoutMs });
  return {
    run: async (command, env) => {
      const child = await sandbox.exec(["sh", "-c", command], { env });
      const [stdout, stderr, code] = await Promise.all([child.stdout.readText(), child.stderr.readText(), child.wait()]);
      if (code !== 0) throw new Error(`\`${command}\` exited with ${code}: ${stderr}`);
      return stdout;
    },
    spawn: async (command, env) => {
      await sandbox.exec(["sh", "-c", command], { env, stdout: "ignore", stderr: "ignore" });
    },
    expose: async (port) => ({ url: (await sandbox.tunnels())[port]!.url }),
    close: () => sandbox.terminate(),
  };
}
