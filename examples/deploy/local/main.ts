/**
 * Deploy on this machine: the install script into a fresh `$HOME`, the daemon on loopback, a
 * session with the mock agent. What a provider's sandbox does, with no provider.
 *
 *   npx tsx local/main.ts                      # installs the v0.2.0 release
 *   SANDBOX_AGENT_BIN=path/to/sandbox-agent npx tsx local/main.ts   # a build of yours, via a local mirror
 */
import { runExample } from "../shared/main.js";
import { startMirror } from "./mirror.js";
import { LocalSandbox } from "./sandbox.js";

const mirror = process.env.SANDBOX_AGENT_BIN ? await startMirror(process.env.SANDBOX_AGENT_BIN) : undefined;
try {
  await runExample(new LocalSandbox(), { host: "127.0.0.1", port: 0, ...(mirror && { install: mirror.url }) });
} finally {
  await mirror?.close();
}
