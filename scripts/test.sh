#!/usr/bin/env bash
# Runs every test of the project: the daemon's workspace (unit, integration, CLI
# and OpenAPI tests against the real binary) and the adapter and test
# components' own tests.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cargo test --workspace --locked
cargo test --locked --manifest-path adapters/Cargo.toml
cargo test --locked --manifest-path testing/guests/Cargo.toml
