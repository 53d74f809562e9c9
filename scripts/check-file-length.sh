#!/usr/bin/env bash
# Fails when a tracked source file is longer than 800 lines: split it into modules
# named for what they hold. Generated files (under a `generated/` folder) are exempt.
set -euo pipefail
cd "$(dirname "$0")/.."
limit=800
long=$(git ls-files -- '*.rs' '*.ts' '*.tsx' '*.js' '*.mjs' '*.py' '*.sh' '*.wit' \
  | grep -v '/generated/' \
  | while IFS= read -r file; do
      [ -f "$file" ] || continue
      lines=$(wc -l < "$file")
      if [ "$lines" -gt "$limit" ]; then echo "$file: $lines lines"; fi
    done)
if [ -n "$long" ]; then
  printf '%s\n' "$long"
  echo "check-file-length: the files above are over $limit lines; split them" >&2
  exit 1
fi
echo "check-file-length: no source file over $limit lines"
