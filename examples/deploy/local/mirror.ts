/**
 * A release mirror on loopback, made from a daemon binary: `install.sh` (the repository's),
 * `agentplex-<target>.tar.gz` (the binary, its second name `sandbox-agent` as a link, LICENSE and
 * README.md, as scripts/release.sh packs it) and its `.sha256`, laid out as a release folder and
 * served by a throwaway HTTP server. The install script installs from it exactly as from a release.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository's root. */
export const REPO_ROOT = resolve(fileURLToPath(new URL("../../..", import.meta.url)));

/** A served mirror; `close()` stops the server and removes the folder. */
export interface Mirror {
  url: string;
  close(): Promise<void>;
}

/** The release target install.sh picks on this machine. */
function target(): string {
  const cpu = { x64: "x86_64", arm64: "aarch64" }[process.arch as string];
  const os = { linux: "unknown-linux-musl", darwin: "apple-darwin" }[process.platform as string];
  if (!cpu || !os) throw new Error(`no release target for ${process.platform}/${process.arch}`);
  return `${cpu}-${os}`;
}

/** Packs `binary` as a release archive into a temp folder and serves the folder on 127.0.0.1. */
export async function startMirror(binary: string): Promise<Mirror> {
  const dir = mkdtempSync(join(tmpdir(), "agentplex-mirror-"));
  const stage = join(dir, "stage");
  mkdirSync(stage);
  copyFileSync(binary, join(stage, "agentplex"));
  symlinkSync("agentplex", join(stage, "sandbox-agent"));
  for (const file of ["LICENSE", "README.md"]) copyFileSync(join(REPO_ROOT, file), join(stage, file));
  const archive = `agentplex-${target()}.tar.gz`;
  execFileSync("tar", ["-czf", join(dir, archive), "-C", stage, "agentplex", "sandbox-agent", "LICENSE", "README.md"]);
  rmSync(stage, { recursive: true });
  const digest = createHash("sha256").update(readFileSync(join(dir, archive))).digest("hex");
  writeFileSync(join(dir, `${archive}.sha256`), `${digest}  ${archive}\n`);
  copyFileSync(join(REPO_ROOT, "scripts", "install.sh"), join(dir, "install.sh"));

  const server = createServer((request, response) => {
    const name = basename(new URL(request.url ?? "/", "http://x").pathname);
    try {
      const body = readFileSync(join(dir, name));
      response.writeHead(200, { "content-length": body.length }).end(body);
    } catch {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      await new Promise((done) => server.close(done));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
