/**
 * A Worker that starts agentplex in a Cloudflare Sandbox and hands out its preview URL and
 * token; `main.ts` then drives it from anywhere. Requests to preview URLs are proxied to the
 * container first.
 *
 *   POST   /sandboxes/:id   (Authorization: Bearer $DEPLOY_SECRET) -> {"url", "token"}
 *   DELETE /sandboxes/:id   (same header)                         -> 204, the sandbox is gone
 */
import { proxyToSandbox, type Sandbox } from "@cloudflare/sandbox";
import { startDaemon } from "../shared/start.js";
import { openSandbox } from "./sandbox.js";

export { Sandbox } from "@cloudflare/sandbox";

/** The Worker's bindings (wrangler.jsonc) and secrets (`wrangler secret put`). */
interface Env {
  Sandbox: DurableObjectNamespace<Sandbox>;
  /** Who may start sandboxes. */
  DEPLOY_SECRET: string;
  /** Passed to the daemon when set: the key of the agent it runs. */
  ANTHROPIC_API_KEY?: string;
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const proxied = await proxyToSandbox(request, env);
    if (proxied) return proxied;
    if (!(await authorized(request, env.DEPLOY_SECRET))) return new Response("unauthorized", { status: 401 });
    const url = new URL(request.url);
    const id = /^\/sandboxes\/([a-z0-9-]{1,40})$/.exec(url.pathname)?.[1];
    if (!id) return new Response("not found", { status: 404 });
    const sandbox = openSandbox(env.Sandbox, id, url.hostname);
    if (request.method === "DELETE") {
      await sandbox.close();
      return new Response(null, { status: 204 });
    }
    if (request.method !== "POST") return new Response("method not allowed", { status: 405 });
    const keys: Record<string, string> = env.ANTHROPIC_API_KEY ? { ANTHROPIC_API_KEY: env.ANTHROPIC_API_KEY } : {};
    const { url: daemonUrl, token } = await startDaemon(sandbox, { install: false, env: keys });
    return Response.json({ url: daemonUrl, token });
  },
};

/** The request carries `Bearer <secret>` (compared in constant time). */
async function authorized(request: Request, secret: string): Promise<boolean> {
  const given = new TextEncoder().encode(request.headers.get("authorization") ?? "");
  const expected = new TextEncoder().encode(`Bearer ${secret}`);
  return given.byteLength === expected.byteLength && crypto.subtle.timingSafeEqual(given, expected);
}
