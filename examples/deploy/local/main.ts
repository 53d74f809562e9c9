/**
 * Deploy on this machine: the install script into a fresh `$HOME`, the daemon on loopback, a
 * session with the mock agent. What a provider's sandbox does, with no provider.
 *
 *   AGENTPLEX_BIN=../../target/debug/agentplex npx tsx local/main.ts   # a build of yours, via a local mirror
 *   AGENTPLEX_BASE_URL=http://127.0.0.1:8000 npx tsx local/main.ts     # a release, e.g. a served dist/
 */
import { releaseUrl, runExample } from "../shared/main.js";
import { startMirror } from "./mirror.js";
import { LocalSandbox } from "./sandbox.js";

const mirror = process.env.AGENTPLEX_BIN ? await startMirror(process.env.AGENTPLEX_BIN) : undefined;
try {
  await runExample(new LocalSandbox(), { host: "127.0.0.1", port: 0, install: mirror?.url ?? releaseUrl() });
} finally {
  await mirror?.close();
}
