/**
 * Deploys sandbox-agent into a new Modal sandbox (the image has the binary) and drives a session
 * with the mock agent (`AGENT=claude ANTHROPIC_API_KEY=...` for a real one). See docs/deploy/modal.md.
 *
 *   npx tsx modal/main.ts
 */
import { runExample } from "../shared/main.js";
import { createSandbox } from "./sandbox.js";

await runExample(await createSandbox(), { install: false });
