/**
 * Deploys agentplex into a new Vercel sandbox with the install script of the release at
 * `$AGENTPLEX_BASE_URL` and drives a session with the mock agent (`AGENT=claude
 * ANTHROPIC_API_KEY=...` for a real one). See docs/deploy/vercel.md.
 *
 *   AGENTPLEX_BASE_URL=https://<where dist/ is published> node --env-file=.env.local --import tsx vercel/main.ts
 */
import { releaseUrl, runExample } from "../shared/main.js";
import { createSandbox } from "./sandbox.js";

const install = releaseUrl();
await runExample(await createSandbox(), { install });
