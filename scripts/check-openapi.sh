#!/usr/bin/env bash
# The OpenAPI document tells the truth: schemathesis (pinned, installed from PyPI into
# target/schemathesis) generates requests from the document the daemon serves, for every
# operation, and runs every check on the answers (statuses, media types, bodies, headers,
# authentication, schema-valid requests accepted and invalid ones refused), against the
# daemon binary of this build running with a token.
#
# Nothing is left out, and nothing acts outside a scratch folder: the daemon runs with
# `--fs-root` on it (files and working directories stay inside) and it as `HOME`, never
# installs an agent for a session (`--no-install`) and would install from an unreachable
# mirror. scripts/check-openapi-hooks.py makes every request harmless before it is sent
# (processes run `true`, installs and sessions use the `mock` agent) and narrows what
# depends on the daemon's agents; its description says what and why.
#
# Usage: scripts/check-openapi.sh [DAEMON_BINARY] (default target/debug/agentplex)
#        scripts/check-openapi.sh --install   (only install schemathesis)
# EXAMPLES (default 25) bounds the examples per operation and phase; SEED changes the
# fixed seed (to look further than CI does).
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/schemathesis
install_schemathesis() {
  "$venv/bin/st" --version 2>/dev/null | grep -q "4.32.5" && return 0
  # A virtual environment of its own; where python3 has no venv module, pip's user site.
  if python3 -m venv "$venv" 2>/dev/null; then
    "$venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis==4.32.5"
  else
    python3 -m pip install --quiet --user "schemathesis==4.32.5"
    mkdir -p "$venv/bin"
    ln -sf "$(python3 -c 'import sysconfig; print(sysconfig.get_path("scripts", "posix_user"))')/st" "$venv/bin/st"
  fi
}
# `--install`: only install schemathesis (scripts/test.sh does it while the daemon builds).
if [ "${1:-}" = --install ]; then
  install_schemathesis
  exit 0
fi
binary="${1:-target/debug/agentplex}"
install_schemathesis

scratch="$(mktemp -d)"
mkdir "$scratch/root"
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
# The ACP registry is a snapshot of one agent with nothing to install on this
# platform: `POST /v1/registry/{agent}` installs nothing whatever it is asked.
cat >"$scratch/registry.json" <<'JSON'
{"version": "1.0.0", "agents": [{"id": "elsewhere", "name": "Elsewhere", "version": "1.0.0",
  "description": "Built for another platform only", "distribution": {"binary": {"windows-aarch64":
  {"archive": "http://127.0.0.1:9/elsewhere.zip", "cmd": "./elsewhere.exe"}}}}]}
JSON
# Port 9 (discard) on loopback: nothing listens, so a download fails at once.
HOME="$scratch" "$binary" server --acp-registry "$scratch/registry.json" --token openapi-check --port "$port" --ephemeral \
  --data-dir "$scratch/data" --fs-root "$scratch/root" --no-install \
  --install-source release --releases-mirror http://127.0.0.1:9 >"$scratch/daemon.log" 2>&1 &
daemon=$!
trap 'kill "$daemon" 2>/dev/null; rm -rf "$scratch"' EXIT
url="http://127.0.0.1:$port"
for _ in $(seq 100); do
  curl -sf "$url/v1/health" >/dev/null && break
  sleep 0.1
done

export OPENAPI_CHECK_URL="$url" OPENAPI_CHECK_TOKEN=openapi-check
OPENAPI_CHECK_TRUE="$(command -v true)"
export OPENAPI_CHECK_TRUE SCHEMATHESIS_HOOKS="$PWD/scripts/check-openapi-hooks.py"
report="$scratch/report.json"
# schemathesis keeps a cache in its working directory: keep it under target/.
# The desktop is never started here: fuzzed, it would start X servers of drawn sizes
# and click, type and open drawn things on them. Its other routes are fuzzed against a
# desktop that does not run (409 `desktop_not_running`); runtime/tests/desktop_api.rs
# drives them on a running one.
status=0
(cd "$venv" && HOME="$scratch" bin/st --config-file "$OLDPWD/scripts/check-openapi.toml" \
  run "$url/v1/openapi.json" --url "$url" --exclude-operation-id start_desktop \
  -H "Authorization: Bearer openapi-check" --checks all \
  --max-examples "${EXAMPLES:-25}" --seed "${SEED:-20261126}" --no-color \
  --report json --report-json-path "$report") || status=$?
# What ran: the operations and test cases from the run's own report, the checks from
# schemathesis's registry (`--checks all`).
python="$venv/bin/python"
[ -x "$python" ] || python=python3
"$python" - "$report" <<'EOF' || true
import json, sys
import schemathesis.specs.openapi.checks  # registers the OpenAPI checks
from schemathesis.checks import CHECKS
report = json.load(open(sys.argv[1]))
operations, cases = report["operations"], report["test_cases"]
checks = CHECKS.get_all_names()
print(f"check-openapi: {operations['tested']} of {operations['total']} operations tested, "
      f"{len(checks)} checks ({', '.join(checks)}), {cases['generated']} test cases, "
      f"{cases['unique_failures']} failures, in {report['running_time']:.0f} s")
EOF
if [ "$status" -ne 0 ]; then
  echo "check-openapi: schemathesis found failures; the daemon's last log lines:" >&2
  tail -n 20 "$scratch/daemon.log" >&2
  exit "$status"
fi
echo "check-openapi: every answer of every operation matches the served document"
