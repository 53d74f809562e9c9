#!/usr/bin/env bash
# Builds the daemon (with its embedded default adapters) and runs it on
# 127.0.0.1:2468. Uses $AGENTPLEX_TOKEN when set, otherwise serves without a
# token (loopback only). Extra arguments go to `agentplex server`.
#
# The build uses the `quick` profile (Cargo.toml): quicker to compile than the
# release artifacts' `dist`, and fast enough to run; and it leaves out the
# `precompiled-builtins` feature, so the daemon compiles its builtin adapters at
# its first start (half a minute, once: they are kept in its cache) instead of
# in the build. The first build from a clone takes
# minutes (see README.md); later ones take seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
say() { printf 'scripts/run.sh: %s\n' "$*" >&2; }
scripts/setup.sh
binary=target/quick/agentplex
if [ -x "$binary" ]; then
  say "building agentplex (quick profile) if anything changed..."
else
  say "building agentplex for the first time (quick profile): its dependencies, the adapters for wasm32-wasip2, then the daemon; this takes minutes, cargo shows its progress below"
fi
cargo build --profile quick -p agentplex --no-default-features --locked
if [ -n "${AGENTPLEX_TOKEN:-}" ]; then auth=(); else auth=(--no-token); fi
say "starting $binary server on 127.0.0.1:2468 ${auth[*]:-(token from AGENTPLEX_TOKEN)}; the first start compiles the builtin adapters, then it prints its listening line"
exec "$binary" server "${auth[@]}" "$@"
