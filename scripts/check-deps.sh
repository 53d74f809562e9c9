#!/usr/bin/env bash
# Checks every workspace's dependencies with cargo-deny (deny.toml): licenses, sources,
# bans, and the RustSec advisories.
#
#   scripts/check-deps.sh --install   builds cargo-deny from crates.io into target/tools
#   scripts/check-deps.sh             runs the checks
#
# The advisory database is a git repository on GitHub, which not every machine reaches
# (a CI that reaches package registries only does not). When it cannot be fetched, the
# advisories are reported as not checked and the other checks still decide;
# AGENTPLEX_REQUIRE_ADVISORIES=1 fails instead.
set -euo pipefail
cd "$(dirname "$0")/.."

version=0.20.2
tools="$PWD/target/tools"
deny="$tools/bin/cargo-deny"

if [ "${1:-}" = "--install" ]; then
  if [ -x "$deny" ] && "$deny" --version | grep -qx "cargo-deny $version"; then
    exit 0
  fi
  # A quick build: cargo-deny's own speed does not matter here (unoptimized, its build
  # takes 118 CPU-seconds instead of 191 at opt-level 1, and the checks below 6 s instead
  # of 2).
  CARGO_PROFILE_RELEASE_OPT_LEVEL=0 CARGO_PROFILE_RELEASE_LTO=false \
    CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 CARGO_PROFILE_RELEASE_DEBUG=false \
    cargo install cargo-deny --version "$version" --locked --root "$tools"
  exit 0
fi

manifests=(Cargo.toml adapters/Cargo.toml testing/guests/Cargo.toml examples/adapter-template/Cargo.toml)
for manifest in "${manifests[@]}"; do
  "$deny" --manifest-path "$manifest" --config deny.toml check licenses bans sources
done

# The advisories, against the database as fetched now.
if ! "$deny" fetch db >/dev/null 2>&1; then
  echo "scripts/check-deps.sh: advisories NOT checked: the RustSec database (github.com/rustsec/advisory-db) cannot be fetched from here" >&2
  [ "${AGENTPLEX_REQUIRE_ADVISORIES:-0}" = 1 ] && exit 1
  exit 0
fi
for manifest in "${manifests[@]}"; do
  "$deny" --offline --manifest-path "$manifest" --config deny.toml check advisories
done
