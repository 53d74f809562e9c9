#!/usr/bin/env bash
# Installs what building sandbox-agent needs beyond a Rust toolchain: the
# WebAssembly component target the adapters are compiled for.
set -euo pipefail
if ! rustup target list --installed | grep -qx wasm32-wasip2; then
  rustup target add wasm32-wasip2
fi
