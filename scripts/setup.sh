#!/usr/bin/env bash
# Installs what building sandbox-agent needs beyond a Rust toolchain: the
# WebAssembly component target the adapters are compiled for, and clippy for the
# lints the tests run.
set -euo pipefail
if ! rustup target list --installed | grep -qx wasm32-wasip2; then
  rustup target add wasm32-wasip2
fi
if ! cargo clippy --version >/dev/null 2>&1; then
  rustup component add clippy
fi
