/**
 * The local "provider": a `Sandbox` whose commands run on this machine with `sh -c`, in a home
 * folder of their own (a temp dir), so the install script writes to `$HOME/.local/bin` there.
 * The tests run every example's shared part through it; `local/main.ts` is the local deploy.
 */
import { spawn as spawnProcess, type ChildProcess, execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Endpoint, Sandbox } from "../shared/sandbox.js";

/** A sandbox on this machine: commands run with `home` as `$HOME` and the environment given. */
export class LocalSandbox implements Sandbox {
  /** The sandbox's `$HOME`, removed by `close()`. */
  readonly home = mkdtempSync(join(tmpdir(), "agentplex-deploy-"));
  private readonly children: ChildProcess[] = [];

  /** `baseEnv` is the environment every command starts from (`PATH` by default). */
  constructor(private readonly baseEnv: Record<string, string> = { PATH: process.env.PATH ?? "/usr/bin:/bin" }) {}

  private env(env: Record<string, string>): Record<string, string> {
    return { ...this.baseEnv, HOME: this.home, ...env };
  }

  run(command: string, env: Record<string, string> = {}): Promise<string> {
    return new Promise((resolve, reject) => {
      execFile("sh", ["-c", command], { env: this.env(env), cwd: this.home }, (error, stdout, stderr) => {
        if (error) reject(new Error(`\`${command}\` failed (${error.code ?? error.signal}): ${stderr.trim()}`));
        else resolve(stdout);
      });
    });
  }

  async spawn(command: string, env: Record<string, string> = {}): Promise<void> {
    // A process group of its own, so close() stops the shell and the daemon together.
    const child = spawnProcess("sh", ["-c", command], { env: this.env(env), cwd: this.home, detached: true, stdio: "ignore" });
    child.unref();
    this.children.push(child);
    // Not left running when the process ends without close() (a failed test, Ctrl-C).
    process.once("exit", () => signalGroup(child, "SIGKILL"));
  }

  async expose(port: number): Promise<Endpoint> {
    return { url: `http://127.0.0.1:${port}` };
  }

  async close(): Promise<void> {
    await Promise.all(this.children.map(stop));
    rmSync(this.home, { recursive: true, force: true });
  }
}

/** SIGTERM to the child's process group; resolves when the child has exited. */
function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    // Waited for from here on: the process does not end while the child stops.
    child.ref();
    child.once("exit", () => resolve());
    if (!signalGroup(child, "SIGTERM")) resolve(); // already gone
  });
}

/** Sends `signal` to the child's process group; false when there is none any more. */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-child.pid!, signal);
    return true;
  } catch {
    return false;
  }
}
