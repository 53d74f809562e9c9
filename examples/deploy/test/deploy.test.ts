/**
 * The deploy examples' daemon-facing part, run for real against the local shim (a `Sandbox`
 * that runs the commands on this machine in a temp `$HOME`), with the daemon binary of
 * `$AGENTPLEX_BIN` (default: the repository's `target/debug/agentplex`) packed as a release and
 * served by a loopback mirror. It proves that:
 * - the install command of the guides (the repository's install.sh) installs that binary and
 *   its second name `sandbox-agent`, the server command starts it with the token from the
 *   environment, and the SDK flow every
 *   example runs (install an agent, a session, two prompts, a permission answered) works
 *   through it; a wrong token is refused;
 * - `local/main.ts`, run as a user runs it, does all of that and prints the transcript;
 * - the example Dockerfiles install with that same command, and the Debian image's own start
 *   command starts a daemon that `docker/main.ts` drives (the repository's Dockerfile, which
 *   builds from source, is tested by image.test.ts);
 * - a daemon that cannot start is reported with the end of its log instead of a hang.
 * The provider-specific lines (e2b, daytona, modal, vercel, cloudflare) are type-checked
 * against the providers' npm packages by `npm run typecheck`, not run: that needs accounts.
 */
import assert from "node:assert/strict";
import { execFile, execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { connect, TokenInvalidError } from "agentplex";
import { BINARY, installCommand, LOG_FILE, serverCommand, STDOUT_FILE } from "../shared/commands.js";
import { deploy } from "../shared/deploy.js";
import { drive } from "../shared/drive.js";
import { startDaemon } from "../shared/start.js";
import { type Mirror, REPO_ROOT, startMirror } from "../local/mirror.js";
import { LocalSandbox } from "../local/sandbox.js";

const binary = process.env.AGENTPLEX_BIN ?? join(REPO_ROOT, "target", "debug", "agentplex");
const version = () => execFileSync(binary, ["--version"], { encoding: "utf8" }).trim();
const quiet = () => {};
const LOCAL = { host: "127.0.0.1", port: 0 };

/**
 * Runs an example's entry point as a user does (`npx tsx FILE`) with `env` over `base` (this
 * process's environment); resolves with its stdout lines.
 */
function runScript(file: string, env: Record<string, string>, base: NodeJS.ProcessEnv = process.env): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const cwd = new URL("..", import.meta.url);
    execFile(process.execPath, ["--import", "tsx", file], { cwd, env: { ...base, ...env } }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${file} failed: ${stderr}`));
      else resolve(stdout.trimEnd().split("\n"));
    });
  });
}

/** Runs `body` with a fresh local sandbox, closed afterwards. */
async function withSandbox<T>(body: (sandbox: LocalSandbox) => Promise<T>): Promise<T> {
  const sandbox = new LocalSandbox();
  try {
    return await body(sandbox);
  } finally {
    await sandbox.close();
  }
}

/** Checks the transcript of `drive` with the mock agent (docs/mock-agent.md). */
function assertMockTranscript(transcript: string[]): void {
  assert.deepEqual(transcript.slice(0, 4), [
    "agent mock: already installed",
    "user: hello from the sandbox",
    "mock: hello from the sandbox",
    "user: permission ls",
  ]);
  assert.equal(transcript[4], "permission command_execution: once");
  assert.match(transcript[5]!, /^mock: Permission granted once/);
  assert.equal(transcript.length, 6);
}

describe("deploying through the local shim", () => {
  let mirror: Mirror;
  before(async () => {
    assert.ok(existsSync(binary), `no daemon binary at ${binary}: build it or set AGENTPLEX_BIN`);
    mirror = await startMirror(binary);
  });
  after(() => mirror?.close());

  it("installs with the install script, starts with a token, and runs the SDK flow", () =>
    withSandbox(async (sandbox) => {
      const { client, url } = await deploy(sandbox, { install: mirror.url, ...LOCAL });
      assert.equal((await sandbox.run(`"${BINARY}" --version`)).trim(), version());
      assert.equal((await sandbox.run(`"$HOME/.local/bin/sandbox-agent" --version`)).trim(), version());
      assertMockTranscript(await drive(client, { print: quiet }));
      await assert.rejects(connect({ baseUrl: url, token: "not-the-token" }), TokenInvalidError);
      await assert.rejects(connect({ baseUrl: url }), TokenInvalidError);
    }));

  for (const example of ["docker", "cloudflare"]) {
    it(`${example}/Dockerfile installs with the same command`, () =>
      withSandbox(async (sandbox) => {
        const dockerfile = readFileSync(new URL(`../${example}/Dockerfile`, import.meta.url), "utf8");
        const lines = dockerfile.split("\n");
        const run = lines.find((line) => line.includes("install.sh"));
        assert.equal(run, `RUN ${installCommand("$AGENTPLEX_BASE_URL")}`);
        // The check before it stops a build without a base URL, with a message.
        const check = lines.find((line) => line.startsWith("RUN test -n"))!.slice("RUN ".length);
        await assert.rejects(sandbox.run(check, { AGENTPLEX_BASE_URL: "" }), /AGENTPLEX_BASE_URL/);
        await sandbox.run(check, { AGENTPLEX_BASE_URL: mirror.url });
        await sandbox.run(run!.slice("RUN ".length), { AGENTPLEX_BASE_URL: mirror.url });
        assert.equal((await sandbox.run(`"${BINARY}" --version`)).trim(), version());
      }));
  }

  it("local/main.ts deploys from a mirror of $AGENTPLEX_BIN and prints the transcript", async () => {
    const lines = await runScript("local/main.ts", { AGENTPLEX_BIN: binary });
    assert.match(lines[0]!, /^daemon \S+ at http:\/\/127\.0\.0\.1:\d+$/);
    assertMockTranscript(lines.slice(1));
  });

  it("local/main.ts deploys from $AGENTPLEX_BASE_URL, and without one says to set it", async () => {
    const lines = await runScript("local/main.ts", { AGENTPLEX_BASE_URL: mirror.url });
    assert.match(lines[0]!, /^daemon \S+ at http:\/\/127\.0\.0\.1:\d+$/);
    assertMockTranscript(lines.slice(1));
    const env = { ...process.env };
    delete env.AGENTPLEX_BIN;
    delete env.AGENTPLEX_BASE_URL;
    await assert.rejects(runScript("local/main.ts", {}, env), /set AGENTPLEX_BASE_URL to the address of a release/);
  });

  it("the Debian image's start command serves docker/main.ts", () =>
    withSandbox(async (sandbox) => {
      const dockerfile = readFileSync(new URL("../docker/Dockerfile", import.meta.url), "utf8");
      const cmd = JSON.parse(/^CMD (\[.*\])$/m.exec(dockerfile)![1]!) as string[];
      await sandbox.run(installCommand(mirror.url));
      // The image's ENV: ~/.local/bin on PATH, host and port (loopback and any free port here).
      const env = { PATH: `${sandbox.home}/.local/bin:${process.env.PATH}`, AGENTPLEX_HOST: "127.0.0.1", AGENTPLEX_PORT: "0" };
      const command = `${cmd.join(" ")} >"${STDOUT_FILE}" 2>"${LOG_FILE}"`;
      const { url, token } = await startDaemon(sandbox, { install: false, command, env });
      assertMockTranscript(await runScript("docker/main.ts", { AGENTPLEX_URL: url, AGENTPLEX_TOKEN: token }));
    }));

  it("reports a daemon that does not start with the end of its log", () =>
    withSandbox(async (sandbox) => {
      await sandbox.run(installCommand(mirror.url));
      const command = `${serverCommand(0, "127.0.0.1")} --adapters-dir "$HOME/missing"`;
      await assert.rejects(
        startDaemon(sandbox, { install: false, command, timeoutMs: 3_000 }),
        /did not report listening in time; its log ends with:\n.*missing/s,
      );
    }));

  it("compose.yaml is valid for docker compose", (t) => {
    try {
      execFileSync("docker", ["compose", "version"], { stdio: "ignore" });
    } catch {
      t.skip("docker compose is not available here (the local shim covers the daemon-facing part)");
      return;
    }
    const config = execFileSync("docker", ["compose", "-f", "compose.yaml", "config", "--format", "json"], {
      cwd: new URL("../docker/", import.meta.url),
      env: { ...process.env, AGENTPLEX_TOKEN: "compose-check" },
      encoding: "utf8",
    });
    const service = JSON.parse(config).services["agentplex"];
    assert.equal(service.environment.AGENTPLEX_TOKEN, "compose-check");
    assert.equal(service.ports[0].target, 2468);
  });
});
