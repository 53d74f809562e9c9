/**
 * The body of every provider's `main.ts`: deploy into the sandbox, drive a session, stop the
 * sandbox. `AGENT=claude ANTHROPIC_API_KEY=...` drives a real agent instead of the mock.
 */
import { deploy } from "./deploy.js";
import { drive, MOCK_PROMPTS } from "./drive.js";
import type { Sandbox } from "./sandbox.js";
import type { StartOptions } from "./start.js";

/** The API keys handed to the daemon when they are set here (docs/credentials.md). */
const AGENT_KEYS = ["ANTHROPIC_API_KEY", "OPENAI_API_KEY"];

/**
 * Where the release to install is: `$AGENTPLEX_BASE_URL`, the address of a `dist/` folder
 * (`scripts/release.sh` builds it) published or mirrored where the sandbox can download it.
 */
export function releaseUrl(): string {
  const url = process.env.AGENTPLEX_BASE_URL;
  if (!url) {
    throw new Error(
      "set AGENTPLEX_BASE_URL to the address of a release: scripts/release.sh builds one into dist/, " +
        "which you publish or mirror where the sandbox can download it (docs/deploy/README.md)",
    );
  }
  return url;
}

/** Deploys, drives and closes; the daemon's env gets the agent keys set in this process. */
export async function runExample(sandbox: Sandbox, options: StartOptions): Promise<void> {
  const env: Record<string, string> = {};
  for (const key of AGENT_KEYS) if (process.env[key]) env[key] = process.env[key]!;
  try {
    const { client, url } = await deploy(sandbox, { ...options, env: { ...env, ...options.env } });
    console.log(`daemon ${(await client.health()).version} at ${url}`);
    const agent = process.env.AGENT ?? "mock";
    await drive(client, { agent, prompts: agent === "mock" ? MOCK_PROMPTS : ["Say hello in five words."] });
  } finally {
    await sandbox.close();
  }
}
