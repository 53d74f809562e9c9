/**
 * What you do with a deployed daemon, the same for every provider: install an agent, open a
 * session, prompt it (answering its permission requests), print the transcript.
 */
import type { Agentplex } from "agentplex";

/** What to drive. */
export interface DriveOptions {
  /** The agent: `mock` (built in, no key) or a real one such as `claude` (its key in the daemon's env). */
  agent?: string;
  /** The messages to send, one turn each. */
  prompts?: string[];
  /** Where the transcript lines go (besides the returned array). */
  print?: (line: string) => void;
}

/** The mock's turns: an echo, then a command that asks for permission (docs/mock-agent.md). */
export const MOCK_PROMPTS = ["hello from the sandbox", "permission ls"];

/** Runs the session and returns the transcript it printed. */
export async function drive(client: Agentplex, options: DriveOptions = {}): Promise<string[]> {
  const { agent = "mock", prompts = MOCK_PROMPTS, print = console.log } = options;
  const transcript: string[] = [];
  const say = (line: string) => {
    transcript.push(line);
    print(line);
  };

  // The daemon downloads the agent's CLI (nothing to do for the mock); creating a session
  // would also install it on demand.
  const installed = await client.installAgent(agent);
  say(`agent ${agent}: ${installed.alreadyInstalled ? "already installed" : `installed ${installed.version ?? ""}`}`);

  const session = await client.createSession(`deploy-${Date.now()}`, { agent });
  session.on("permission", (request) => {
    say(`permission ${request.action}: once`);
    return "once";
  });
  try {
    for (const prompt of prompts) {
      say(`user: ${prompt}`);
      const result = await session.prompt(prompt);
      say(`${agent}: ${result.text}`);
    }
  } finally {
    await session.terminate();
  }
  return transcript;
}
