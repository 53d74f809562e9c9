/**
 * Deploys agentplex into a new E2B sandbox with the install script of the release at
 * `$AGENTPLEX_BASE_URL` and drives a session with the mock agent (`AGENT=claude
 * ANTHROPIC_API_KEY=...` for a real one). See docs/deploy/e2b.md.
 *
 *   AGENTPLEX_BASE_URL=https://<where dist/ is published> npx tsx e2b/main.ts
 */
import { releaseUrl, runExample } from "../shared/main.js";
import { createSandbox } from "./sandbox.js";

const install = releaseUrl();
await runExample(await createSandbox(), { install });
