#!/usr/bin/env bash
# The OpenAPI document tells the truth: schemathesis (pinned, installed from PyPI into
# target/schemathesis) generates requests from the document the daemon serves and checks
# every answer against it (statuses, media types, bodies, headers, authentication),
# against the daemon binary of this build running with a token.
#
# The filesystem routes that write or delete (PUT /v1/fs/file, DELETE /v1/fs/entry,
# move, mkdir, upload-batch), agent installs and starting processes (POST /v1/processes and
# /v1/processes/run) are left out: random absolute paths would act on this machine's files,
# installs download, and random commands would run here. runtime/tests/fs_api.rs and
# runtime/tests/install.rs and runtime/tests/processes/ test them. Creating a session with a schema-valid but unknown
# agent id answers 400 `unsupported_agent` (as 0.1.x does), so that one operation runs
# without the "schema-valid requests are accepted" check.
#
# Usage: scripts/check-openapi.sh [DAEMON_BINARY] (default target/debug/sandbox-agent)
#        scripts/check-openapi.sh --install   (only install schemathesis)
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
binary="${1:-target/debug/sandbox-agent}"
install_schemathesis

home="$(mktemp -d)"
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
HOME="$home" "$binary" server --token openapi-check --port "$port" --ephemeral \
  --data-dir "$home/data" >"$home/daemon.log" 2>&1 &
daemon=$!
trap 'kill "$daemon" 2>/dev/null; rm -rf "$home"' EXIT
for _ in $(seq 100); do
  curl -sf "http://127.0.0.1:$port/v1/health" >/dev/null && break
  sleep 0.1
done

url="http://127.0.0.1:$port"
# schemathesis keeps a cache in its working directory: keep it under target/.
st() { (cd "$venv" && bin/st "$@"); }
common=(--url "$url" -H "Authorization: Bearer openapi-check" --checks all
  --max-examples 40 --seed 20261126 --no-color
  --exclude-path-regex '^/v1/fs/(file|entry|move|mkdir|upload-batch)$'
  --exclude-path '/v1/agents/{agent}/install'
  --exclude-operation-id run_process --exclude-operation-id create_process)
# GET /v1/fs/file shares its path with the excluded PUT: it runs on its own.
st run "$url/v1/openapi.json" "${common[@]}" --exclude-operation-id create_session
st run "$url/v1/openapi.json" "${common[@]}" --include-operation-id create_session \
  --exclude-checks positive_data_acceptance
st run "$url/v1/openapi.json" --url "$url" -H "Authorization: Bearer openapi-check" \
  --checks all --max-examples 40 --seed 20261126 --no-color \
  --include-operation-id read_file
echo "check-openapi: the served document matches every answer"
