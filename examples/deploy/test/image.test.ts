/**
 * The repository's Dockerfile (the image `docker build -t agentplex .` makes from a clone), tested
 * without a Docker engine:
 * - the build context (.dockerignore) holds every file git tracks and none of the build outputs,
 *   dependencies or git metadata;
 * - the build stage builds the binary `scripts/release.sh` builds (package, binary, profile) and
 *   hands it to the runtime stage, which runs it as `agentplex` under tini as the user `agent`;
 * - the runtime stage's own commands run in the local shim with `$AGENTPLEX_BIN` as the binary
 *   the build stage made (the image's `/` is the shim's `$HOME`): the second name
 *   `sandbox-agent` answers `--version`, and the entrypoint and command with the image's
 *   environment (loopback and a free port instead of `0.0.0.0:2468`) and `AGENTPLEX_TOKEN` start
 *   a daemon that keeps its data in the image's data dir and that `docker/main.ts` drives.
 * The stages' package installs (`apt-get`, `apk add`) and the build itself need the engine and
 * are not run here.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { connect } from "agentplex";
import { LOG_FILE, STDOUT_FILE } from "../shared/commands.js";
import { drive } from "../shared/drive.js";
import { startDaemon } from "../shared/start.js";
import { REPO_ROOT } from "../local/mirror.js";
import { LocalSandbox } from "../local/sandbox.js";

const binary = process.env.AGENTPLEX_BIN ?? join(REPO_ROOT, "target", "debug", "agentplex");

/** One instruction of a Dockerfile: `RUN`, `COPY`... and its text, continuation lines joined. */
interface Instruction {
  op: string;
  args: string;
}

/** The stages of a Dockerfile, each a list of its instructions (comments dropped). */
function stages(text: string): Instruction[][] {
  const result: Instruction[][] = [];
  const joined = text.replace(/\\\n/g, " ").split("\n");
  for (const line of joined) {
    const match = /^([A-Z]+)\s+(.*)$/.exec(line.trim());
    if (!match) continue;
    const instruction = { op: match[1]!, args: match[2]!.replace(/\s+/g, " ").trim() };
    if (instruction.op === "FROM") result.push([]);
    result.at(-1)?.push(instruction);
  }
  return result;
}

const [build, runtime] = stages(readFileSync(join(REPO_ROOT, "Dockerfile"), "utf8"));
const all = (stage: Instruction[], op: string) => stage.filter((i) => i.op === op).map((i) => i.args);
const one = (stage: Instruction[], op: string) => all(stage, op).at(-1) ?? "";

/** True when the .dockerignore pattern excludes `path` (a file path relative to the context). */
function excludes(pattern: string, path: string): boolean {
  const source = pattern
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replace(/\*\*\//g, "\u0000")
    .replace(/\*/g, "[^/]*")
    .replace(/\u0000/g, "(?:.*/)?");
  return new RegExp(`^${source}(?:/.*)?$`).test(path);
}

describe("the repository's Dockerfile", () => {
  it("has a build stage and a runtime stage", () => {
    assert.match(one(build!, "FROM"), /^rust:\S+ AS build$/);
    assert.match(one(runtime!, "FROM"), /^alpine:\S+$/);
  });

  it("sends the clone's sources as the build context, without outputs, dependencies or .git", () => {
    const patterns = readFileSync(join(REPO_ROOT, ".dockerignore"), "utf8")
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith("#"));
    assert.ok(!patterns.some((p) => p.startsWith("!")), "no re-inclusions: the context is the clone minus the list");
    const tracked = execFileSync("git", ["ls-files"], { cwd: REPO_ROOT, encoding: "utf8" }).split("\n").filter(Boolean);
    const dropped = tracked.filter((file) => patterns.some((p) => excludes(p, file)));
    assert.deepEqual(dropped, [], "tracked files left out of the build context");
    assert.ok(tracked.some((file) => file.startsWith("inspector/dist/")), "the committed inspector bundle is tracked");
    for (const output of [".git/HEAD", "target/debug/agentplex", "adapters/target/x", "dist/install.sh", "examples/deploy/node_modules/x/index.js"]) {
      assert.ok(patterns.some((p) => excludes(p, output)), `${output} is left out`);
    }
  });

  it("builds the release binary in the build stage and hands it to the runtime stage", () => {
    const run = all(build!, "RUN").join(" && ");
    assert.match(run, /rustup target add "\$\(uname -m\)-unknown-linux-musl" wasm32-wasip2/);
    assert.match(run, /triple="\$\(uname -m\)-unknown-linux-musl"/);
    assert.match(run, /cargo build --locked --profile dist --target "\$triple" -p agentplex --bin agentplex/);
    assert.match(run, /cp "target\/\$triple\/dist\/agentplex" \/out\/agentplex/);
    // The same package, binary and profile as the release archives.
    const release = readFileSync(join(REPO_ROOT, "scripts", "release.sh"), "utf8");
    assert.match(release, /--profile dist --target "\$triple" -p agentplex --bin "\$BINARY"/);
    assert.match(release, /^BINARY=agentplex$/m);
    assert.ok(all(runtime!, "COPY").includes("--from=build /out/agentplex /usr/local/bin/agentplex"));
  });

  it("runs agentplex under tini as the user agent, with a token from AGENTPLEX_TOKEN", () => {
    assert.deepEqual(JSON.parse(one(runtime!, "ENTRYPOINT")), ["/sbin/tini", "--", "agentplex"]);
    assert.deepEqual(JSON.parse(one(runtime!, "CMD")), ["server"]);
    assert.equal(one(runtime!, "USER"), "agent");
    assert.match(all(runtime!, "RUN").join(" "), /adduser -D -h \/home\/agent -s \/bin\/sh agent/);
    assert.deepEqual(all(runtime!, "ENV"), ["HOME=/home/agent", "AGENTPLEX_HOST=0.0.0.0 AGENTPLEX_PORT=2468"]);
    assert.equal(one(runtime!, "EXPOSE"), "2468");
  });

  it("runs its runtime commands and its entrypoint in the local shim", async () => {
    assert.ok(existsSync(binary), `no daemon binary at ${binary}: build it or set AGENTPLEX_BIN`);
    const sandbox = new LocalSandbox();
    try {
      // The image's / is the sandbox's $HOME; the image's HOME (/home/agent) is that too.
      const root = (path: string) => path.replaceAll("/home/agent", "$HOME").replaceAll("/usr/", "$HOME/usr/");
      await sandbox.run(`mkdir -p "$HOME/usr/local/bin"`);
      copyFileSync(binary, join(sandbox.home, "usr", "local", "bin", "agentplex"));
      const commands = all(runtime!, "RUN").filter((run) => !run.startsWith("apk add"));
      assert.deepEqual(commands, ["ln -s agentplex /usr/local/bin/sandbox-agent", "mkdir -p /home/agent/.local/share/agentplex"]);
      for (const command of commands) await sandbox.run(root(command));

      const PATH = `${sandbox.home}/usr/local/bin:${process.env.PATH}`;
      const version = execFileSync(binary, ["--version"], { encoding: "utf8" }).trim();
      assert.equal((await sandbox.run("sandbox-agent --version", { PATH })).trim(), version);

      // ENTRYPOINT without tini (PID 1 in the container), then CMD; the token as `docker run -e`.
      const [, , ...entrypoint] = JSON.parse(one(runtime!, "ENTRYPOINT")) as string[];
      const command = [...entrypoint, ...(JSON.parse(one(runtime!, "CMD")) as string[])].join(" ");
      const env = { PATH, AGENTPLEX_HOST: "127.0.0.1", AGENTPLEX_PORT: "0" };
      const { url, token } = await startDaemon(sandbox, { install: false, command: `${command} >"${STDOUT_FILE}" 2>"${LOG_FILE}"`, env });
      // The daemon keeps its data in the folder the image made for it (empty until then).
      await sandbox.run(`test -n "$(ls -A "$HOME/.local/share/agentplex")"`);
      const transcript = await drive(await connect({ baseUrl: url, token }), { print: () => {} });
      assert.equal(transcript[2], "mock: hello from the sandbox");
    } finally {
      await sandbox.close();
    }
  });
});
