#!/usr/bin/env bash
# Smoke test of a release binary: testing/release/smoke.sh BINARY
#
# Checks that BINARY is a static executable, prints its version (also when called
# by its second name, sandbox-agent), starts as a daemon with a fresh home (no data dir, no compile cache) and answers at once,
# lists the builtin agents, runs a mock session through one streamed turn, and
# stops cleanly on SIGTERM. Loopback only. Ends with a line `N passed, M failed`.
set -euo pipefail

bin="${1:?usage: testing/release/smoke.sh BINARY}"
root="$(cd "$(dirname "$0")/../.." && pwd)"
version="$(awk -F'"' '/^\[workspace.package\]/ { section = 1 } section && /^version/ { print $2; exit }' "$root/Cargo.toml")"
tmp="$(mktemp -d)"
pid=""
passed=0
failed=0

cleanup() {
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then kill -9 "$pid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

pass() { passed=$((passed + 1)); echo "ok   $1"; }
fail() { failed=$((failed + 1)); echo "FAIL $1${2:+: $2}"; }
check() { # check NAME COMMAND...: passes when the command succeeds
  local name="$1"; shift
  if "$@" >"$tmp/out" 2>&1; then pass "$name"; else fail "$name" "$(tail -n 3 "$tmp/out" | tr '\n' ' ')"; fi
}

static_binary() {
  if command -v file >/dev/null 2>&1; then
    file -L "$bin" | grep -Eq 'statically linked|static-pie linked'
  else
    ! ldd "$bin" >/dev/null 2>&1
  fi
}
check "the binary is statically linked" static_binary

version_line="$("$bin" --version)"
if [[ "$version_line" == "agentplex $version ("*")" ]]; then
  pass "--version: $version_line"
else
  fail "--version" "'$version_line' does not start with 'agentplex $version ('"
fi
# The second name, as the archives ship it: a link called sandbox-agent.
ln -s "$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")" "$tmp/sandbox-agent"
alias_line="$("$tmp/sandbox-agent" --version 2>&1 || true)"
alias_usage="$("$tmp/sandbox-agent" --help 2>&1 | grep -m 1 'Usage:' || true)"
if [ "$alias_line" = "$version_line" ] && [[ "$alias_usage" == "Usage: sandbox-agent "* ]]; then
  pass "called as sandbox-agent: the same --version, and --help names sandbox-agent"
else
  fail "called as sandbox-agent" "'$alias_line' / '$alias_usage'"
fi

# free_port: a TCP port free on loopback now.
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}
# wait_healthy BASE: "yes" once BASE/v1/health answers (polled every 5 ms for 10 s), else "no".
wait_healthy() {
  for _ in $(seq 1 2000); do
    if curl -fsS -o /dev/null "$1/v1/health" 2>/dev/null; then echo yes; return; fi
    sleep 0.005
  done
  echo no
}

port="$(free_port)"
base="http://127.0.0.1:$port"
mkdir -p "$tmp/home"
started="$(date +%s%N)"
# Sessions park 100 ms after their last input, so that the second turn below
# runs on an instance rebuilt from its snapshot (the allocator keeps instances
# in pages of their own: built, dropped and built again here).
# At the info level the log says when a builtin is compiled instead of taken precompiled
# (checked after the turns below).
HOME="$tmp/home" XDG_DATA_HOME="$tmp/home/data" AGENTPLEX_LOG=info AGENTPLEX_ADAPTER_PARK_AFTER_MS=100 \
  "$bin" server --no-token --host 127.0.0.1 --port "$port" >"$tmp/server.log" 2>&1 &
pid=$!
healthy="$(wait_healthy "$base")"
if [ "$healthy" = yes ]; then
  pass "a cold start answers GET /v1/health ($(( ($(date +%s%N) - started) / 1000000 )) ms, polled with curl)"
else
  fail "a cold start answers GET /v1/health" "$(tail -n 3 "$tmp/server.log" | tr '\n' ' ')"
fi

agents="$(curl -fsS "$base/v1/agents" || true)"
count="$(printf '%s' "$agents" | python3 -c 'import json, sys; print(len(json.load(sys.stdin)["agents"]))' 2>/dev/null || echo 0)"
if [ "$count" -ge 7 ]; then pass "GET /v1/agents lists the $count builtin agents"; else fail "GET /v1/agents" "$agents"; fi

created="$(curl -fsS -X POST "$base/v1/sessions/smoke" -H 'content-type: application/json' -d '{"agent":"mock"}' || true)"
if [[ "$created" == *'"healthy":true'* ]]; then pass "a mock session is created"; else fail "creating a mock session" "$created"; fi

# Streams one turn of the smoke session with MESSAGE; passes with WHAT when the
# mock echoes it and ends the turn.
echo_turn() {
  local message="$1" what="$2" turn
  turn="$(curl -fsSN --max-time 20 -X POST "$base/v1/sessions/smoke/messages/stream" \
    -H 'content-type: application/json' -d "{\"message\":\"$message\"}" || true)"
  if [[ "$turn" == *'"type":"turn.ended"'* && "$turn" == *"$message"* ]]; then
    pass "$what"
  else
    fail "$what" "$(printf '%s' "$turn" | tail -c 300)"
  fi
}

echo_turn "hello from the release" "a streamed mock turn echoes and ends"
sleep 0.5
echo_turn "hello again" "the session, parked at rest, answers its next turn"

# Every builtin the daemon loaded came precompiled into the binary (its build script
# precompiled them, or took them from AGENTPLEX_PRECOMPILED_BUILTINS): none was compiled.
compiled="$(grep -E 'no usable precompiled form|compiling the builtin adapter' "$tmp/server.log" || true)"
if [ -z "$compiled" ]; then
  pass "the builtin adapters run precompiled (none compiled at start)"
else
  fail "the builtin adapters run precompiled" "$(printf '%s' "$compiled" | head -c 300)"
fi

kill -TERM "$pid"
rc=0
for _ in $(seq 1 1000); do
  if ! kill -0 "$pid" 2>/dev/null; then break; fi
  sleep 0.01
done
if kill -0 "$pid" 2>/dev/null; then
  fail "SIGTERM stops the daemon within 10 s"
else
  wait "$pid" || rc=$?
  if [ "$rc" -eq 0 ]; then pass "SIGTERM stops the daemon (exit 0)"; else fail "SIGTERM stops the daemon" "exit $rc"; fi
fi
pid=""

# The 0.2 variables are still read, with one deprecation line on stderr.
port="$(free_port)"
HOME="$tmp/home" XDG_DATA_HOME="$tmp/home/data" SANDBOX_AGENT_PORT="$port" SANDBOX_AGENT_HOST=127.0.0.1 \
  "$bin" server --no-token --ephemeral >/dev/null 2>"$tmp/legacy.log" &
pid=$!
healthy="$(wait_healthy "http://127.0.0.1:$port")"
notes="$(grep -c 'SANDBOX_AGENT_\* variables are deprecated' "$tmp/legacy.log" || true)"
if [ "$healthy" = yes ] && [ "$notes" = 1 ]; then
  pass "SANDBOX_AGENT_HOST and SANDBOX_AGENT_PORT are read, with one deprecation line"
else
  fail "SANDBOX_AGENT_HOST and SANDBOX_AGENT_PORT are read, with one deprecation line" "health $healthy, $notes lines: $(head -c 300 "$tmp/legacy.log")"
fi
kill -TERM "$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
pid=""

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
