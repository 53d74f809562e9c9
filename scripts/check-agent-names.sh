#!/usr/bin/env bash
# Fails when the daemon (runtime/) or the host (host-api/) names an agent outside
# their tests: everything an agent needs lives in its adapter component
# (adapters/<agent>/), so a new agent never needs a daemon change. The names
# checked are the adapter crates' folder names (the builtin mock is the daemon's
# own and allowed, and so is acp-generic, which is no agent but the runner of
# every agent added from the ACP registry); test code is skipped: files named tests.rs or *_tests.rs,
# tests/ folders, and a file's inline `#[cfg(test)] mod ... {` (by convention its
# last item). The model gateway (runtime/gateway/) is not checked: it speaks the
# model providers' wire formats and prices their models (Google's Gemini API,
# Anthropic's Claude models), which are providers' names, not agents'.
set -euo pipefail
cd "$(dirname "$0")/.."
names=$(find adapters -mindepth 2 -maxdepth 2 -name Cargo.toml -printf '%h\n' \
  | xargs -n1 basename | grep -vx -e kit -e mock -e acp-generic | sort | paste -sd'|')
if [ -z "$names" ]; then
  echo "check-agent-names: no adapter crates found under adapters/" >&2
  exit 2
fi
found=0
while IFS= read -r file; do
  # An inline test module (`#[cfg(test)]` then `mod ... {`) ends what is checked.
  hits=$(awk '
    pending && /^[[:space:]]*(pub(\([a-z]+\))? )?mod [a-z_]+ \{/ { exit }
    { pending = 0 }
    /^[[:space:]]*#\[cfg\(test\)\]/ { pending = 1; next }
    { print FILENAME ":" FNR ": " $0 }' "$file" \
    | grep -iwE "$names" || true)
  if [ -n "$hits" ]; then
    printf '%s\n' "$hits"
    found=1
  fi
done < <(find runtime host-api/src host-api/precompile/src -name '*.rs' \
  -not -name tests.rs -not -name '*_tests.rs' -not -path '*/tests/*' \
  -not -path 'runtime/benches/*' -not -path 'runtime/gateway/*' | sort)
if [ "$found" -ne 0 ]; then
  echo "check-agent-names: the lines above name an agent ($names) in the daemon or the host;" \
    "move that knowledge into the agent's adapter" >&2
  exit 1
fi
echo "check-agent-names: no agent named in runtime/ or host-api/ outside tests"
