/**
 * Deploys agentplex into a new Modal sandbox (its image has the binary, installed from the release
 * at `$AGENTPLEX_BASE_URL`) and drives a session with the mock agent (`AGENT=claude
 * ANTHROPIC_API_KEY=...` for a real one). See docs/deploy/modal.md.
 *
 *   AGENTPLEX_BASE_URL=https://<where dist/ is published> npx tsx modal/main.ts
 */
import { runExample } from "../shared/main.js";
import { createSandbox } from "./sandbox.js";

await runExample(await createSandbox(), { install: false });
