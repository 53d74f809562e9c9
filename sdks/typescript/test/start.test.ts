/** start(): finding the binary, ports, tokens, health, and stopping the daemon. */
import { spawn } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, inject, it } from "vitest";
import { AgentplexError, start, type LocalAgentplex } from "../src/node.js";
import { freePort } from "./helpers.js";

const binary = inject("binary");
const cacheDir = inject("cacheDir");
const scratch = mkdtempSync(join(tmpdir(), "agentplex-sdk-start-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

let dirs = 0;
const dataDir = () => join(scratch, `data-${++dirs}`);
const common = () => ({ dataDir: dataDir(), args: ["--cache-dir", cacheDir] });

/** Whether `pid` runs (a zombie, exited but not yet reaped by its new parent, does not). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return !/^\d+ \(.*\) [ZX]/.test(stat);
  } catch {
    return process.platform !== "linux";
  }
}

async function waitDead(pid: number, ms = 5_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (!alive(pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return !alive(pid);
}

/** Runs `fn` with environment variables set (undefined: unset), then restores them. */
async function withEnv<T>(vars: Record<string, string | undefined>, fn: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  const apply = (values: Record<string, string | undefined>) => {
    for (const [k, v] of Object.entries(values)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
  apply(vars);
  try {
    return await fn();
  } finally {
    apply(saved);
  }
}

function script(name: string, body: string): string {
  const path = join(scratch, name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

/**
 * The binary under test as `agentplex` in a folder of its own. A binary from before the rename
 * reads only SANDBOX_AGENT_TOKEN: the script then hands it AGENTPLEX_TOKEN under that name,
 * and refuses to run when start() gave SANDBOX_AGENT_TOKEN (an `agentplex` binary gets only
 * AGENTPLEX_TOKEN).
 */
function renamedBinary(): string {
  const dir = join(scratch, "renamed");
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "agentplex");
  if (basename(binary) === "agentplex") {
    symlinkSync(binary, path);
    return path;
  }
  writeFileSync(
    path,
    `#!/bin/sh\n[ -z "$SANDBOX_AGENT_TOKEN" ] || { echo "SANDBOX_AGENT_TOKEN given" >&2; exit 3; }\n` +
      `SANDBOX_AGENT_TOKEN="$AGENTPLEX_TOKEN" exec "${binary}" "$@"\n`,
  );
  chmodSync(path, 0o755);
  return path;
}

describe("start()", () => {
  it("runs the binary on a free port with a generated token; dispose stops it", async () => {
    const client = await start({ binaryPath: binary, ...common() });
    try {
      expect(client.baseUrl).toBe(`http://127.0.0.1:${client.port}`);
      expect(client.token).toMatch(/^[0-9a-f]{48}$/);
      expect(alive(client.pid)).toBe(true);
      expect((await client.health()).status).toBe("ok");
      expect((await client.listAgents()).some((a) => a.id === "mock")).toBe(true);
      // The token is required.
      expect((await fetch(`${client.baseUrl}/v1/sessions`)).status).toBe(401);
      const session = await client.createSession("started", { agent: "mock" });
      expect((await session.prompt("hello")).text).toBe("hello");
      expect(client.stderr()).toMatch(/(agentplex|sandbox-agent) listening/);
    } finally {
      await client.dispose();
    }
    expect(alive(client.pid)).toBe(false);
    expect(client.process.exitCode ?? client.process.signalCode).not.toBeNull();
    await client.dispose(); // again: nothing to do
    await expect(client.health()).rejects.toMatchObject({ code: "network_error" });
  });

  it("takes the port and token given, and the binary from SANDBOX_AGENT_BIN", async () => {
    const port = await freePort();
    const client = await withEnv({ SANDBOX_AGENT_BIN: binary }, () =>
      start({ port, token: "given-token", ...common() }),
    );
    try {
      expect(client.port).toBe(port);
      expect(client.token).toBe("given-token");
      expect(client.process.spawnargs.join(" ")).not.toContain("given-token");
      const answer = await fetch(`http://127.0.0.1:${port}/v1/agents`, {
        headers: { authorization: "Bearer given-token" },
      });
      expect(answer.status).toBe(200);
    } finally {
      await client[Symbol.asyncDispose]();
    }
    expect(alive(client.pid)).toBe(false);
  });

  it("finds sandbox-agent on PATH", async () => {
    const client = await withEnv(
      { AGENTPLEX_BIN: undefined, SANDBOX_AGENT_BIN: undefined, PATH: `${dirname(binary)}:${process.env.PATH ?? ""}` },
      () => start(common()),
    );
    await client.dispose();
    await withEnv({ AGENTPLEX_BIN: undefined, SANDBOX_AGENT_BIN: undefined, PATH: scratch }, async () => {
      const error = await start(common()).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AgentplexError);
      expect(error).toMatchObject({ code: "binary_not_found" });
    });
  });

  it("finds agentplex before sandbox-agent, on PATH and in the variables; its token is in AGENTPLEX_TOKEN", async () => {
    const renamed = renamedBinary();
    const old = join(scratch, "old");
    mkdirSync(old, { recursive: true });
    symlinkSync(binary, join(old, "sandbox-agent"));
    // sandbox-agent comes first on PATH: agentplex is still preferred.
    const vars = { AGENTPLEX_BIN: undefined, SANDBOX_AGENT_BIN: undefined, PATH: `${old}:${dirname(renamed)}` };
    const fromPath = await withEnv(vars, () => start(common()));
    try {
      expect(fromPath.process.spawnfile).toBe(renamed);
      expect((await fromPath.listAgents()).length).toBeGreaterThan(0);
      expect((await fetch(`${fromPath.baseUrl}/v1/agents`)).status).toBe(401);
    } finally {
      await fromPath.dispose();
    }
    const variables = { ...vars, AGENTPLEX_BIN: renamed, SANDBOX_AGENT_BIN: join(scratch, "nope") };
    const fromVariable = await withEnv(variables, () => start(common()));
    expect(fromVariable.process.spawnfile).toBe(renamed);
    await fromVariable.dispose();
    // The token variables of this process (here files that do not exist) are not passed on.
    const missing = join(scratch, "nope");
    const inherited = await withEnv({ AGENTPLEX_TOKEN_FILE: missing, SANDBOX_AGENT_TOKEN_FILE: missing }, () =>
      start({ binaryPath: binary, ...common() }),
    );
    expect((await inherited.listSessions()).length).toBe(0);
    await inherited.dispose();
  });

  it("reports a missing binary, a daemon that exits, and one that never prints its listening line", async () => {
    const missing = await start({ binaryPath: join(scratch, "nope") }).catch((e: unknown) => e);
    expect(missing).toMatchObject({ code: "binary_not_found", status: 0 });

    const exits = script("exits.sh", "echo 'something broke' >&2\nexit 3");
    const exited = (await start({ binaryPath: exits }).catch((e: unknown) => e)) as AgentplexError;
    expect(exited).toMatchObject({ code: "daemon_exited", title: "Daemon Exited", status: 0, exitCode: 3 });
    expect(exited.stderr).toContain("something broke");
    expect(exited.detail).toContain("something broke");

    const pidFile = join(scratch, "sleeper.pid");
    const sleeps = script("sleeps.sh", `echo $$ > ${pidFile}\nexec sleep 30`);
    const timedOut = await start({ binaryPath: sleeps, timeoutMs: 300 }).catch((e: unknown) => e);
    expect(timedOut).toMatchObject({ code: "timeout" });
    expect(await waitDead(Number(readFileSync(pidFile, "utf8")))).toBe(true);
  });

  it("runs the daemon with --port 0 and connects to the address of its listening line", async () => {
    const client = await start({ binaryPath: binary, ...common() });
    try {
      const args = client.process.spawnargs;
      expect(args[args.indexOf("--port") + 1]).toBe("0");
      expect(client.port).toBeGreaterThan(0);
      expect((await client.health()).status).toBe("ok");
    } finally {
      await client.dispose();
    }
    // The address comes from the line, whatever it says.
    const lines = [
      ["sandbox-agent listening on http://127.0.0.1:4321", 4321],
      ["agentplex listening on http://127.0.0.1:4322", 4322],
      ['{"level":"INFO","fields":{"message":"agentplex listening on http://127.0.0.1:4323"}}', 4323],
    ] as const;
    for (const [line, port] of lines) {
      const liar = script(`liar-${port}.sh`, `echo '${line}'\nexec sleep 30`);
      const fake = await start({ binaryPath: liar });
      expect(fake.baseUrl).toBe(`http://127.0.0.1:${port}`);
      expect(fake.port).toBe(port);
      await fake.dispose();
    }
    const other = script("other.sh", "echo 'hello from something else'\nexec sleep 30");
    const error = await start({ binaryPath: other }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "unexpected_response" });
  });

  it("refuses a given port that is in use (another daemon would answer its health check)", async () => {
    const first: LocalAgentplex = await start({ binaryPath: binary, ...common() });
    try {
      const error = await start({ binaryPath: binary, port: first.port, ...common() }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AgentplexError);
      expect(error).toMatchObject({ code: "port_in_use" });
    } finally {
      await first.dispose();
    }
  });

  it("aborts with the signal", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(start({ binaryPath: binary, signal: controller.signal, ...common() })).rejects.toMatchObject({
      name: "AbortError",
    });
  });
});

describe("a daemon left running is stopped when its process ends", () => {
  const fixture = fileURLToPath(new URL("./fixtures/start-and-leave.mjs", import.meta.url));

  async function runFixture(mode: "exit" | "return" | "wait") {
    const child = spawn(process.execPath, [fixture, mode, dataDir(), cacheDir], {
      env: { ...process.env, SANDBOX_AGENT_BIN: binary },
      stdio: ["ignore", "pipe", "inherit"],
    });
    const line = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
        out += chunk;
        if (out.includes("\n")) resolve(out);
      });
      child.once("exit", (code) => reject(new Error(`fixture exited with ${code} before printing`)));
    });
    const exited = new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve();
      else child.once("exit", () => resolve());
    });
    return { child, pid: (JSON.parse(line) as { pid: number }).pid, exited };
  }

  it.each(["exit", "return"] as const)("on %s", async (mode) => {
    const { pid, exited } = await runFixture(mode);
    await exited;
    expect(await waitDead(pid)).toBe(true);
  });

  it("on SIGTERM", async () => {
    const { child, pid, exited } = await runFixture("wait");
    expect(alive(pid)).toBe(true);
    child.kill("SIGTERM");
    await exited;
    expect(child.signalCode).toBe("SIGTERM");
    expect(await waitDead(pid)).toBe(true);
  });
});
