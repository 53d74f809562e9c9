#!/usr/bin/env node
// The `agentplex` command on npm (also installed as `sandbox-agent`, its second
// name for scripts written for 0.1.x): runs the native binary from the platform
// package npm installed next to this one (agentplex-cli-<platform>-<arch>, an
// optional dependency pinned to this package's version). The binary gets the
// arguments, the terminal and the name it was called by; signals sent to this
// process are passed on to it, and this process ends the way the binary ended
// (same exit code, or same signal).
//
// AGENTPLEX_BIN=/path/to/agentplex runs that binary instead (SANDBOX_AGENT_BIN,
// its 0.2 name, is still read, with a note).
//
// Plain CommonJS, Node >= 18, no dependencies.
"use strict";

const { spawn } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");

const PACKAGE = "agentplex-cli";
const BINARY = "agentplex";
const ALIAS = "sandbox-agent";
// process.platform-process.arch -> the package that holds the binary for it.
const PLATFORM_PACKAGES = {
  "linux-x64": "agentplex-cli-linux-x64",
  "linux-arm64": "agentplex-cli-linux-arm64",
  "darwin-x64": "agentplex-cli-darwin-x64",
  "darwin-arm64": "agentplex-cli-darwin-arm64",
};
const INSTALL_HINT =
  "or install the binary with the install script (see the docs: Installing agentplex)";

// One line to stderr, exit 1.
function fail(message) {
  process.stderr.write(`${BINARY}: ${message}\n`);
  process.exit(1);
}

// The platform packages this release of agentplex-cli lists.
function releasedPackages() {
  try {
    const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "package.json"), "utf8"));
    return Object.keys(manifest.optionalDependencies || {});
  } catch {
    return Object.values(PLATFORM_PACKAGES);
  }
}

// AGENTPLEX_BIN, or the older SANDBOX_AGENT_BIN (with a note); undefined when neither is set.
function overrideVariable() {
  if (process.env.AGENTPLEX_BIN) return "AGENTPLEX_BIN";
  if (process.env.SANDBOX_AGENT_BIN) {
    process.stderr.write(`${BINARY}: note: SANDBOX_AGENT_BIN is deprecated, read as AGENTPLEX_BIN; set AGENTPLEX_BIN instead\n`);
    return "SANDBOX_AGENT_BIN";
  }
  return undefined;
}

function binaryPath() {
  const variable = overrideVariable();
  if (variable) {
    const override = process.env[variable];
    if (!fs.existsSync(override)) {
      fail(`${variable} is set to ${override}, which does not exist`);
    }
    return override;
  }

  const key = `${process.platform}-${process.arch}`;
  const pkg = PLATFORM_PACKAGES[key];
  if (!pkg || !releasedPackages().includes(pkg)) {
    const supported = Object.keys(PLATFORM_PACKAGES)
      .filter((k) => releasedPackages().includes(PLATFORM_PACKAGES[k]))
      .join(", ");
    fail(
      `no prebuilt binary of ${PACKAGE} for ${key} (built for: ${supported || "none"}); ` +
        `build it from source and set AGENTPLEX_BIN to it`,
    );
  }

  let dir;
  try {
    dir = path.dirname(require.resolve(`${pkg}/package.json`));
  } catch {
    fail(
      `the platform package ${pkg} is not installed (npm skips optional dependencies with ` +
        `--no-optional or --omit=optional): reinstall ${PACKAGE} without those flags, ${INSTALL_HINT}`,
    );
  }
  const bin = path.join(dir, "bin", BINARY);
  if (!fs.existsSync(bin)) {
    fail(`${pkg} holds no bin/${BINARY}: reinstall ${PACKAGE}, ${INSTALL_HINT}`);
  }
  // Some tools that unpack tarballs drop the executable bit: put it back.
  try {
    fs.accessSync(bin, fs.constants.X_OK);
  } catch {
    try {
      fs.chmodSync(bin, 0o755);
    } catch {
      // spawn reports the problem below.
    }
  }
  return bin;
}

// The name this command was called by: `sandbox-agent` or `agentplex`.
function calledAs() {
  return path.basename(process.argv[1] || "", ".js") === ALIAS ? ALIAS : BINARY;
}

function run() {
  const bin = binaryPath();
  const child = spawn(bin, process.argv.slice(2), { stdio: "inherit", argv0: calledAs() });

  // Pass these signals on to the binary; it decides when to stop. (A Ctrl-C in a
  // terminal reaches it directly too: the daemon treats a second one like the first.)
  const forwarded = ["SIGINT", "SIGTERM", "SIGHUP"];
  const forward = (signal) => {
    if (child.exitCode === null && child.signalCode === null) {
      try {
        child.kill(signal);
      } catch {
        // Already gone.
      }
    }
  };
  for (const signal of forwarded) {
    process.on(signal, forward);
  }

  child.on("error", (error) => {
    fail(`could not run ${bin}: ${error.message}`);
  });

  child.on("exit", (code, signal) => {
    if (signal) {
      // End by the same signal: drop our handlers so the default action runs.
      for (const s of forwarded) {
        process.removeAllListeners(s);
      }
      try {
        process.kill(process.pid, signal);
      } catch {
        // Fall through to the shell's convention below.
      }
      // A signal Node ignores (SIGPIPE): exit with the shell's code for it instead.
      setTimeout(() => process.exit(128 + (os.constants.signals[signal] || 1)), 100);
      return;
    }
    process.exit(code === null ? 1 : code);
  });
}

run();
