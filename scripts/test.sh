#!/usr/bin/env bash
# Runs every test of the project: the daemon's workspace (unit, integration, CLI
# and OpenAPI tests against the real binary), the adapter and test components'
# own tests, the SDKs, the deploy examples, the inspector and the release.
#
# What only downloads (npm, apt, PyPI, rustup) starts at once in the background
# and overlaps the Rust build; each step waits for what it needs. Those jobs'
# output is in target/test-logs/<job>.log and is printed when one fails. Every
# step prints the time it starts at.
set -euo pipefail
cd "$(dirname "$0")/.."

# step NAME: prints the time it starts at and the disk space left where the builds go.
step() {
  local free
  free=$(df -Pm target 2>/dev/null | awk 'NR == 2 { printf "%.1f GB free", $4 / 1024 }')
  printf '\n== scripts/test.sh [%dm%02ds] %s (%s)\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*" "${free:-disk space unknown}"
}
# One run builds everything once: rustc's incremental caches (2 GB of the workspace's
# in target/debug) would only serve a later edit, and a CI disk ran out with them.
# CARGO_INCREMENTAL=1 keeps them.
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"
logs=target/test-logs
mkdir -p "$logs"
declare -A fetching
# fetch NAME COMMAND...: runs COMMAND in the background, its output in $logs/NAME.log.
fetch() {
  local name="$1"
  shift
  ("$@") >"$logs/$name.log" 2>&1 &
  fetching[$name]=$!
}
# fetched NAME: waits for the background job NAME; its log and a non-zero exit if it failed.
fetched() {
  if ! wait "${fetching[$1]}"; then
    cat "$logs/$1.log" >&2
    echo "scripts/test.sh: $1 failed (its output is above)" >&2
    exit 1
  fi
}
# tree PID: PID and all its descendants, parents first.
tree() {
  local child
  echo "$1"
  for child in $(ps -o pid= --ppid "$1" 2>/dev/null); do tree "$child"; done
}
# On the way out, the background jobs end with everything they started (a release
# build left behind would hold cargo's lock on target/ for minutes at its lowest priority).
trap 'for job in $(jobs -p); do kill $(tree "$job") 2>/dev/null; done; true' EXIT

# The Debian packages whose commands are missing (ripgrep: OpenCode's skill tool runs
# it, and would download it on first use, which the offline suite cannot; chromium: the
# inspector's browser tests; postgresql: the PostgreSQL store's tests start servers of
# their own with its initdb and postgres, runtime/store/src/postgres/temp.rs; the
# desktop's below).
missing_packages=()
command -v rg >/dev/null 2>&1 || missing_packages+=(ripgrep)
command -v chromium >/dev/null 2>&1 || missing_packages+=(chromium)
# The desktop's tests (runtime/desktop/tests, runtime/tests/desktop_api.rs): an X server,
# a window manager, and ffmpeg for recordings (ffplay is the program they launch).
command -v Xvfb >/dev/null 2>&1 || missing_packages+=(xvfb)
command -v openbox >/dev/null 2>&1 || missing_packages+=(openbox)
command -v ffmpeg >/dev/null 2>&1 || missing_packages+=(ffmpeg)
compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || command -v initdb >/dev/null 2>&1 ||
  [ -n "${POSTGRES_BIN:-}" ] || missing_packages+=(postgresql)
if [ "${#missing_packages[@]}" -gt 0 ] && [ "$(id -u)" != 0 ]; then
  echo "scripts/test.sh: install these packages first (it installs them itself only as root): apt-get install -y ${missing_packages[*]}" >&2
  exit 1
fi
# As root (CI), apt-get installs what is missing.
apt_packages() {
  [ "${#missing_packages[@]}" -gt 0 ] || return 0
  apt-get install -y "${missing_packages[@]}" || { apt-get update && apt-get install -y "${missing_packages[@]}"; }
}
# The real agent CLIs the conformance suite drives (runtime/tests/conformance.rs),
# pinned in testing/agents/package-lock.json and installed from the npm registry;
# Qwen Code is pinned apart (testing/agents/qwen/package.json says why).
agent_clis() {
  (cd testing/agents && npm ci --no-audit --no-fund)
  # The ACP clients nobody here wrote (runtime/tests/http_api/acp.rs).
  (cd testing/acp-clients && npm ci --no-audit --no-fund)
  (cd testing/agents/qwen && npm install --omit=optional --no-package-lock --no-audit --no-fund)
}
# The TypeScript SDK's dependencies, then the deploy examples' (which use the SDK
# through a `file:` dependency).
sdk_and_deploy_packages() {
  (cd sdks/typescript && npm ci --no-audit --no-fund)
  (cd examples/deploy && npm ci --no-audit --no-fund)
}
# The Python SDK with its pinned test tools, from PyPI into a venv under target/.
python_sdk() {
  local venv=target/python-sdk-venv
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "./sdks/python[test]"
}

if ! command -v npm >/dev/null 2>&1; then
  echo "scripts/test.sh: npm (Node.js 20+) is needed for the agent CLIs and the TypeScript SDK" >&2
  exit 1
fi
step "downloads start in the background (logs in $logs)"
fetch apt apt_packages
fetch agent-clis agent_clis
fetch sdk-and-deploy-packages sdk_and_deploy_packages
fetch inspector-packages bash -c 'cd inspector && npm ci --no-audit --no-fund'
fetch python-sdk python_sdk
fetch schemathesis scripts/check-openapi.sh --install
fetch release-tools scripts/release.sh --install-tools x86_64-unknown-linux-musl
fetch deny-tool scripts/check-deps.sh --install

step "setup and source checks"
scripts/setup.sh
# Agent knowledge lives in the adapters: the daemon and the host name no agent.
scripts/check-agent-names.sh
scripts/check-file-length.sh
# Lints, as errors, in every workspace, while the tests build: clippy is the compiler of
# the workspaces' own crates (what `cargo clippy` does, as a build instead of a check), so
# the dependency tree compiles once for both. Every target is built (and linted) first;
# benches are only built, the rest run. Only these cargo commands use it (the release
# below is built by rustc alone).
clippy_driver="$(rustup which clippy-driver 2>/dev/null || echo "$(rustc --print sysroot)/bin/clippy-driver")"
linted() {
  RUSTC_WORKSPACE_WRAPPER="$clippy_driver" CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__" cargo "$@"
}
step "build and lint the workspace (clippy -D warnings, every target)"
linted test --workspace --all-targets --locked --no-run
# Every later step drives this binary. Without it the TypeScript SDK's tests ran
# `cargo build -p agentplex`, whose features (one package, not the workspace) differ:
# a second build of the daemon and most of its tree, 3 minutes of CI.
export AGENTPLEX_BIN="${AGENTPLEX_BIN:-$PWD/target/debug/agentplex}"
# The release (docs/installation.md): the static x86_64 musl binary as scripts/release.sh
# builds it (cargo-zigbuild with Zig from PyPI, installed by the script when missing) into
# dist/ with its archive, checksums, install script and npm packages. It starts here, in the
# background at the lowest priority, on what the tests leave of the cores (a quarter: they
# wait on the agent CLIs), and gets its priority back when they end. Its builtin adapters are
# precompiled by the tool the build above made and handed over in a folder
# (AGENTPLEX_PRECOMPILED_BUILTINS, given to this build only: the builtins' build script reruns
# when it changes), so the release compiles no second copy of wasmtime and Cranelift for its
# build script. Its output is in $logs/release.log, printed when it ends.
release_target=x86_64-unknown-linux-musl
release_build() {
  local handover="$PWD/target/precompiled-builtins"
  nice -n 19 target/debug/agentplex-precompile --target "$release_target" --out "$handover" \
    adapters/target/wasm32-wasip2/release/sandbox_agent_adapter_*.wasm
  AGENTPLEX_PRECOMPILED_BUILTINS="$handover" nice -n 19 scripts/release.sh --target "$release_target"
}
# renice_tree PID: the process PID and all its descendants back to the default priority
# (only root may raise a priority: elsewhere they stay low).
renice_tree() {
  renice -n 0 -p $(tree "$1") >/dev/null 2>&1 || true
}
step "release build starts in the background (log in $logs/release.log)"
fetched release-tools
fetch release release_build
step "cargo test --workspace"
fetched apt
fetched agent-clis
linted test --workspace --locked
# The release's last crates compile one after another, one core each (codegen-units =
# 1), then link on one core (fat LTO: four of its minutes): from here it is the longest
# path to the end, so it runs at full priority, and the builds of the steps below at a
# lower one (the tests they then run at full priority again).
step "the release build at full priority"
renice_tree "${fetching[release]}"
# Every dependency's license and source, and the RustSec advisories (deny.toml).
step "dependencies (cargo deny)"
fetched deny-tool
scripts/check-deps.sh
# The served OpenAPI document against the daemon's real answers (schemathesis).
step "OpenAPI against the daemon (schemathesis)"
fetched schemathesis
scripts/check-openapi.sh target/debug/agentplex
# Until the release has built the builtin adapters (or ended): the builtins' build script
# builds the adapters in adapters/target, which the next step uses too; agentplex-install,
# a crate built on them, starts only after it.
until grep -q '^ *Compiling agentplex-install v' "$logs/release.log" 2>/dev/null ||
  ! kill -0 "${fetching[release]}" 2>/dev/null; do
  sleep 5
done

step "adapters, test guests and the adapter template (linted as they build)"
# The guests and the template build into the folder the workspace tests built their
# components in (runtime/tests/common/mod.rs, wasm_target_dir): the template's test finds
# its component built, and the two share their dependencies' native builds.
wasm_builds="$PWD/target/tmp/wasm-builds"
(
  # Built at a lower priority than the release's chain of crates (above).
  renice -n 10 -p "$BASHPID" >/dev/null 2>&1 || true
  linted test --all-targets --locked --manifest-path adapters/Cargo.toml --no-run
  for manifest in testing/guests/Cargo.toml examples/adapter-template/Cargo.toml; do
    CARGO_TARGET_DIR="$wasm_builds" linted test --all-targets --locked --manifest-path "$manifest" --no-run
  done
)
linted test --locked --manifest-path adapters/Cargo.toml
CARGO_TARGET_DIR="$wasm_builds" linted test --locked --manifest-path testing/guests/Cargo.toml
# The adapter template replays its transcripts through the daemon binary built above.
CARGO_TARGET_DIR="$wasm_builds" linted test --locked --manifest-path examples/adapter-template/Cargo.toml

# The TypeScript SDK (sdks/typescript): its generated types match docs/openapi.json, it
# type-checks and builds (ESM + CJS), and its vitest suite passes against the daemon binary
# ($AGENTPLEX_BIN, built above).
step "TypeScript SDK"
fetched sdk-and-deploy-packages
(cd sdks/typescript && npm test)

# The deploy examples (examples/deploy, docs/deploy): each provider's lines type-check against
# the provider's npm package, and the part every example shares (install.sh from a loopback
# mirror of the binary built above, the server with a token, the SDK flow with the mock agent,
# the Dockerfiles' install and start commands) runs through a local shim. Uses the SDK built
# just above (a `file:` dependency).
step "deploy examples"
(
  cd examples/deploy
  npm test
)

# The Python SDK (sdks/python), installed with its pinned test tools (python_sdk above): its
# models match docs/openapi.json (tests/test_models.py), it type-checks with mypy --strict, ruff finds nothing, and its pytest suite passes against the daemon
# binary built above (or $AGENTPLEX_BIN), examples/python and the README example included.
step "Python SDK"
fetched python-sdk
(
  venv=target/python-sdk-venv
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
step "inspector"
fetched inspector-packages
(cd inspector && npm test)

# The release built above: a smoke run of its binary; the install script against dist/
# served on loopback (and a tampered copy); the npm packages installed offline into an
# empty project.
step "release"
fetched release
cat "$logs/release.log"
testing/release/smoke.sh "target/$release_target/dist/agentplex"
testing/release/test.sh dist
step "done"
