#!/usr/bin/env bash
# Builds the daemon (with its embedded default adapters) and runs it on
# 127.0.0.1:2468. Uses $SANDBOX_AGENT_TOKEN when set, otherwise serves without a
# token (loopback only). Extra arguments go to `sandbox-agent server`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
if [ -n "${SANDBOX_AGENT_TOKEN:-}" ]; then auth=(); else auth=(--no-token); fi
exec cargo run --release -p agentplex -- server "${auth[@]}" "$@"
