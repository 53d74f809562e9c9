/**
 * Drives the daemon of `docker compose up` (or `docker run`) with the SDK: install an agent, a
 * session, a transcript. See docs/deploy/docker.md.
 *
 *   AGENTPLEX_TOKEN=... npx tsx docker/main.ts     # AGENTPLEX_URL, default http://127.0.0.1:2468
 */
import { connectWhenUp } from "../shared/deploy.js";
import { drive } from "../shared/drive.js";

const token = process.env.AGENTPLEX_TOKEN;
if (!token) throw new Error("set AGENTPLEX_TOKEN to the token the container was started with");
const client = await connectWhenUp({ url: process.env.AGENTPLEX_URL ?? "http://127.0.0.1:2468", token });
await drive(client, { agent: process.env.AGENT ?? "mock" });
