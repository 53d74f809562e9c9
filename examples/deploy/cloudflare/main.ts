/**
 * Asks the Worker (worker.ts) for a sandbox with agentplex running, drives a session there,
 * and deletes the sandbox. See docs/deploy/cloudflare.md.
 *
 *   WORKER_URL=https://agentplex.example.com DEPLOY_SECRET=... npx tsx cloudflare/main.ts
 */
import { connectWhenUp } from "../shared/deploy.js";
import { drive } from "../shared/drive.js";
import type { Started } from "../shared/start.js";

const { WORKER_URL, DEPLOY_SECRET } = process.env;
if (!WORKER_URL || !DEPLOY_SECRET) throw new Error("set WORKER_URL and DEPLOY_SECRET");
const sandboxUrl = `${WORKER_URL}/sandboxes/demo-${Date.now()}`;
const authorization = { authorization: `Bearer ${DEPLOY_SECRET}` };
const response = await fetch(sandboxUrl, { method: "POST", headers: authorization });
if (!response.ok) throw new Error(`the Worker answered ${response.status}: ${await response.text()}`);
try {
  const client = await connectWhenUp((await response.json()) as Started);
  await drive(client, { agent: process.env.AGENT ?? "mock" });
} finally {
  await fetch(sandboxUrl, { method: "DELETE", headers: authorization });
}
