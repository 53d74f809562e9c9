#!/usr/bin/env bash
# Runs every test of the project: the daemon's workspace (unit, integration, CLI
# and OpenAPI tests against the real binary) and the adapter and test
# components' own tests.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
# Agent knowledge lives in the adapters: the daemon and the host name no agent.
scripts/check-agent-names.sh
scripts/check-file-length.sh
# Lints, as errors, in every workspace.
cargo clippy --workspace --all-targets --locked -- -D warnings
for manifest in adapters/Cargo.toml testing/guests/Cargo.toml examples/adapter-template/Cargo.toml; do
  cargo clippy --all-targets --locked --manifest-path "$manifest" -- -D warnings
done
if ! command -v npm >/dev/null 2>&1; then
  echo "scripts/test.sh: npm (Node.js 20+) is needed for the agent CLIs and the TypeScript SDK" >&2
  exit 1
fi

# The real agent CLIs the conformance suite drives (runtime/tests/conformance.rs),
# pinned in testing/agents/package-lock.json and installed from the npm registry.
(cd testing/agents && npm ci --no-audit --no-fund)
# OpenCode's skill tool runs ripgrep, which OpenCode would download on first use (the
# offline suite cannot): Debian's package.
if ! command -v rg >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get install -y ripgrep || { $sudo apt-get update && $sudo apt-get install -y ripgrep; }
fi
# Qwen Code is pinned apart (testing/agents/qwen/package.json says why).
(cd testing/agents/qwen && npm install --omit=optional --no-package-lock --no-audit --no-fund)
cargo test --workspace --locked
# The served OpenAPI document against the daemon's real answers (schemathesis).
scripts/check-openapi.sh target/debug/sandbox-agent
cargo test --locked --manifest-path adapters/Cargo.toml
cargo test --locked --manifest-path testing/guests/Cargo.toml
# The adapter template replays its transcripts through the daemon binary built above.
SANDBOX_AGENT_BIN="$PWD/target/debug/sandbox-agent" \
  cargo test --locked --manifest-path examples/adapter-template/Cargo.toml

# The TypeScript SDK (sdks/typescript): its generated types match docs/openapi.json, it
# type-checks and builds (ESM + CJS), and its vitest suite passes against the daemon binary
# (`cargo build -p agentplex`, already built above, or $SANDBOX_AGENT_BIN).
(
  cd sdks/typescript
  npm ci --no-audit --no-fund
  npm test
)

# The deploy examples (examples/deploy, docs/deploy): each provider's lines type-check against
# the provider's npm package, and the part every example shares (install.sh from a loopback
# mirror of the binary built above, the server with a token, the SDK flow with the mock agent,
# the Dockerfiles' install and start commands) runs through a local shim. Uses the SDK built
# just above (a `file:` dependency).
(
  export SANDBOX_AGENT_BIN="${SANDBOX_AGENT_BIN:-$PWD/target/debug/sandbox-agent}"
  cd examples/deploy
  npm ci --no-audit --no-fund
  npm test
)

# The Python SDK (sdks/python): installed with its pinned test tools from PyPI into a venv
# under target/, its models match docs/openapi.json (tests/test_models.py), it type-checks
# with mypy --strict, ruff finds nothing, and its pytest suite passes against the daemon
# binary built above (or $SANDBOX_AGENT_BIN), examples/python and the README example included.
(
  venv=target/python-sdk-venv
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "./sdks/python[test]"
  export SANDBOX_AGENT_BIN="${SANDBOX_AGENT_BIN:-$PWD/target/debug/sandbox-agent}"
  cd sdks/python
  ../../"$venv"/bin/mypy
  ../../"$venv"/bin/ruff check . ../../examples/python
  ../../"$venv"/bin/ruff format --check . ../../examples/python
  ../../"$venv"/bin/pytest -q
)

# The web inspector (inspector/, served by the daemon at /ui, docs/inspector.md): it
# type-checks, its committed bundle inspector/dist (embedded in the binary) is exactly what its
# sources build to, and its browser suite drives Debian's Chromium with Playwright's library
# (no browser download) against the daemon binary built above.
if ! command -v chromium >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get install -y chromium || { $sudo apt-get update && $sudo apt-get install -y chromium; }
fi
(
  cd inspector
  npm ci --no-audit --no-fund
  npm test
)

# The release (docs/installation.md): the static x86_64 musl binary as scripts/release.sh
# builds it (cargo-zigbuild with Zig from PyPI, installed by the script when missing) into
# dist/ with its archive, checksums, install script and npm packages; a smoke run of that
# binary; the install script against dist/ served on loopback (and a tampered copy); the
# npm packages installed offline into an empty project.
scripts/release.sh --target x86_64-unknown-linux-musl
testing/release/smoke.sh target/x86_64-unknown-linux-musl/dist/sandbox-agent
testing/release/test.sh dist
