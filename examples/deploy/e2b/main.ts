/**
 * Deploys sandbox-agent into a new e2b sandbox with the install script and drives a session
 * with the mock agent (`AGENT=claude ANTHROPIC_API_KEY=...` for a real one). See docs/deploy/e2b.md.
 *
 *   npx tsx e2b/main.ts
 */
import { runExample } from "../shared/main.js";
import { createSandbox } from "./sandbox.js";

await runExample(await createSandbox());
