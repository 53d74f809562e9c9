/**
 * Deploys sandbox-agent into a new daytona sandbox with the install script and drives a session
 * with the mock agent (`AGENT=claude ANTHROPIC_API_KEY=...` for a real one). See docs/deploy/daytona.md.
 *
 *   npx tsx daytona/main.ts
 */
import { runExample } from "../shared/main.js";
import { createSandbox } from "./sandbox.js";

await runExample(await createSandbox());
