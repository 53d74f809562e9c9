/**
 * The built package (run after `npm run build`): both module formats load through the
 * package's own `exports`, and the main entry pulls in no Node module.
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));
const built = existsSync(join(root, "dist", "esm", "index.js")) && existsSync(join(root, "dist", "cjs", "index.js"));
// A specifier vite leaves alone, so Node resolves the package by its own name and `exports`.
const load = (specifier: string) => import(/* @vite-ignore */ specifier);

describe.runIf(built)("the built package", () => {
  it("loads as ES modules", async () => {
    const main = await load("agentplex");
    expect(typeof main.connect).toBe("function");
    expect(typeof main.Agentplex).toBe("function");
    expect(typeof main.AgentplexError).toBe("function");
    expect(main.start).toBeUndefined();
    const node = await load("agentplex/node");
    expect(typeof node.start).toBe("function");
    expect(node.AgentplexError).toBe(main.AgentplexError);
  });

  it("loads as CommonJS", () => {
    const require = createRequire(join(root, "package.json"));
    const main = require("agentplex");
    expect(typeof main.connect).toBe("function");
    expect(main.start).toBeUndefined();
    const error = main.AgentplexError.create("timeout", 504, "slow");
    expect(error).toBeInstanceOf(Error);
    expect(error.code).toBe("timeout");
    const node = require("agentplex/node");
    expect(typeof node.start).toBe("function");
    expect(node.AgentplexError).toBe(main.AgentplexError);
  });

  it.each(["esm", "cjs"])("keeps Node modules out of the %s main entry", (format) => {
    const seen = new Set<string>();
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const text = readFileSync(file, "utf8");
      expect(text, file).not.toMatch(/["'](node:)?(child_process|fs|net|crypto|os|path)["']/);
      for (const [, spec] of text.matchAll(/(?:from |import\(|require\()["'](\.[^"']+)["']/g)) {
        visit(join(dirname(file), spec!.endsWith(".js") ? spec! : `${spec}.js`));
      }
    };
    visit(join(root, "dist", format, "index.js"));
    expect(seen.size).toBeGreaterThan(4);
  });
});

/** Every name the main entry exports: the public API, and nothing else. */
const PUBLIC = [
  "AdapterFailedError",
  "AgentNotInstalledError",
  "AgentProcessExitedError",
  "Agentplex",
  "AgentplexError",
  "BinaryNotFoundError",
  "CrossOriginRefusedError",
  "DaemonExitedError",
  "DesktopConflictError",
  "DesktopFailedError",
  "DesktopNotRunningError",
  "DesktopUnavailableError",
  "ERROR_CLASSES",
  "ERROR_TYPE_PREFIX",
  "GatewayTimeoutError",
  "HostNotAllowedError",
  "InstallFailedError",
  "InternalError",
  "InvalidArchiveError",
  "InvalidRequestError",
  "MethodNotAllowedError",
  "ModeNotSupportedError",
  "NetworkError",
  "NotConfiguredError",
  "NotFoundError",
  "PathConflictError",
  "PathNotFoundError",
  "PayloadTooLargeError",
  "PermissionDeniedError",
  "PortInUseError",
  "ProcessConflictError",
  "ProcessLimitReachedError",
  "ProcessNotFoundError",
  "ProcessTerminal",
  "RecordingNotFoundError",
  "RequestNotFoundError",
  "SandboxAgent",
  "SandboxAgentError",
  "Session",
  "SessionAlreadyExistsError",
  "SessionElsewhereError",
  "SessionEndedError",
  "SessionNotFoundError",
  "SpawnFailedError",
  "StorageFullError",
  "StorageUnavailableError",
  "StreamError",
  "TimeoutError",
  "TokenInvalidError",
  "UnexpectedResponseError",
  "UnsupportedAgentError",
  "UnsupportedMediaTypeError",
  "WindowNotFoundError",
  "connect",
  "decodeProcessLogData",
  "isProblemDetails",
];

// Bun, from the npm package pinned in package-lock (its binary comes as an optional dependency).
const bun = join(root, "node_modules", ".bin", process.platform === "win32" ? "bun.exe" : "bun");

describe.runIf(built)("the packed package, installed and imported by its name", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "agentplex-pack-"));
    const [packed] = JSON.parse(
      execFileSync("npm", ["pack", "--json", "--pack-destination", dir], { cwd: root, encoding: "utf8" }),
    ) as Array<{ filename: string }>;
    const target = join(dir, "node_modules", "agentplex");
    mkdirSync(target, { recursive: true });
    execFileSync("tar", ["xzf", join(dir, packed!.filename), "-C", target, "--strip-components=1"]);
    copyFileSync(join(root, "test", "fixtures", "package-check.mjs"), join(dir, "check.mjs"));
    copyFileSync(join(root, "..", "..", "examples", "typescript", "quickstart.mjs"), join(dir, "quickstart.mjs"));
  }, 60_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  // A data dir of its own for each run of the check.
  const args = () => [
    JSON.stringify(PUBLIC),
    inject("binary"),
    "--cache-dir",
    inject("cacheDir"),
    "--data-dir",
    mkdtempSync(join(dir, "data-")),
  ];

  it("exports only the public API under Node; internals are unreachable", () => {
    const out = execFileSync(process.execPath, ["check.mjs", ...args()], { cwd: dir, encoding: "utf8" });
    expect(out.trim().split("\n").pop()).toBe("ok");
  });

  it("runs examples/typescript/quickstart.mjs as written", () => {
    const out = execFileSync(process.execPath, ["quickstart.mjs", "--cache-dir", inject("cacheDir") as string], {
      cwd: dir,
      encoding: "utf8",
      env: { ...process.env, AGENTPLEX_BIN: inject("binary") as string },
    });
    expect(out).toMatch(/^turn 1:$/m);
    expect(out).toMatch(/^  delta /m);
    expect(out).toMatch(/^turn 2: Permission granted once: I may run `ls`\.$/m);
    expect(out).toMatch(/^file notes\.md \(file, 8 bytes\)$/m);
  }, 60_000);

  it.runIf(existsSync(bun))("works under Bun: the same checks, and start() + a prompt", () => {
    const out = execFileSync(bun, ["check.mjs", ...args()], { cwd: dir, encoding: "utf8" });
    expect(out.trim().split("\n").pop()).toBe("ok");
  });
});
