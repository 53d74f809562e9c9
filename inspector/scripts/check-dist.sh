#!/usr/bin/env bash
# Rebuilds inspector/dist from the sources and fails when it differs from what is committed
# (the daemon embeds dist/, so sources and assets must not drift apart).
set -euo pipefail
cd "$(dirname "$0")/.."
node scripts/build.mjs
if ! git diff --quiet -- dist || [ -n "$(git status --porcelain -- dist)" ]; then
  git status --short -- dist
  git diff --stat -- dist
  echo "inspector/dist differs from what its sources build to: run 'npm run build' in inspector/ and commit dist/" >&2
  exit 1
fi
echo "inspector: dist/ matches its sources"
