#!/usr/bin/env bash
# Tests the release artifacts scripts/release.sh wrote into DIST (default: dist/):
#
#   testing/release/test.sh [DIST]
#
# - the archives (agentplex and its second name sandbox-agent, which runs too),
#   their .sha256 files and SHA256SUMS;
# - install.sh against DIST served over HTTP on loopback: an install (with curl;
#   with wget + shasum under dash; with BusyBox alone when it is installed; with
#   the 0.2 variables, read with a note; from a stamped base URL; from a base URL
#   with {version}), both names installed, a foreign sandbox-agent kept and an old
#   one replaced, a release of another version refused, a tampered checksum, a
#   corrupt archive over an existing install, a 404, an unsupported OS, no base
#   URL, --help, sh -n and shellcheck;
# - the npm tarballs installed offline into an empty project: npx agentplex and
#   npx sandbox-agent (each called by its name), exit codes, signals, the
#   missing-platform message, AGENTPLEX_BIN (and SANDBOX_AGENT_BIN with a note).
#
# No network beyond 127.0.0.1. Needs python3, curl, node and npm. Prints one line
# per check and "N passed, M failed"; exits non-zero when a check failed.
# Programs for node and sh are written in single quotes on purpose; `ls -A` lists
# the few files of a dir for a message.
# shellcheck disable=SC2016,SC2012
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
dist_arg="${1:-$root/dist}"
[ -d "$dist_arg" ] || { echo "test.sh: no release dir $dist_arg (run scripts/release.sh first)" >&2; exit 1; }
dist="$(cd "$dist_arg" && pwd)"
for tool in python3 curl node npm tar; do
  command -v "$tool" >/dev/null 2>&1 || { echo "test.sh: $tool is needed" >&2; exit 1; }
done

# The tests set what they need: none of the caller's settings (a token would clash
# with `server --no-token`, a bin dir would redirect installs).
while read -r v; do unset "$v"; done < <(compgen -e | grep -E '^(AGENTPLEX|SANDBOX_AGENT)_' || true)

passed=0
failed=0
pass() {
  passed=$((passed + 1))
  printf 'ok    %s\n' "$1"
}
fail() {
  failed=$((failed + 1))
  printf 'FAIL  %s%s\n' "$1" "${2:+: $2}"
}
skip() {
  printf 'skip  %s\n' "$1"
}
# check NAME CMD...: passes when CMD succeeds.
check() {
  local name="$1"
  shift
  if "$@"; then pass "$name"; else fail "$name"; fi
}
# The pids of a process's children.
children_of() {
  if command -v pgrep >/dev/null 2>&1; then
    pgrep -P "$1" || true
  else
    local s pid ppid
    for s in /proc/[0-9]*/stat; do
      read -r pid _ _ ppid _ <"$s" 2>/dev/null || continue
      if [ "$ppid" = "$1" ]; then echo "$pid"; fi
    done
  fi
}
# Stops a background process we started, and its children: SIGTERM, then SIGKILL
# after 3 s.
stop() {
  local pid="$1" kids
  kids="$(children_of "$pid")"
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  # shellcheck disable=SC2086 # a list of pids
  kill -KILL "$pid" $kids 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

tmp="$(mktemp -d "${TMPDIR:-/tmp}/agentplex-release-test.XXXXXX")"
server_pid=""
shim_pid=""
cleanup() {
  if [ -n "$shim_pid" ] && kill -0 "$shim_pid" 2>/dev/null; then stop "$shim_pid"; fi
  if [ -n "$server_pid" ]; then stop "$server_pid"; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

# Runs CMD with a deadline when `timeout` exists.
deadline() {
  local secs="$1"
  shift
  if command -v timeout >/dev/null 2>&1; then timeout "$secs" "$@"; else "$@"; fi
}

lines() { # number of lines in FILE
  local n
  n="$(wc -l <"$1")"
  echo $((n))
}

# ---- what is in dist ------------------------------------------------------------

version="$(sed -n 's/^AGENTPLEX_VERSION_DEFAULT="\(.*\)"$/\1/p' "$dist/install.sh" 2>/dev/null || true)"
case "$version" in
  "" | *@*) echo "test.sh: $dist/install.sh has no version stamped in (was it written by scripts/release.sh?)" >&2; exit 1 ;;
esac
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) host_target=x86_64-unknown-linux-musl host_npm=linux-x64 ;;
  Linux-aarch64 | Linux-arm64) host_target=aarch64-unknown-linux-musl host_npm=linux-arm64 ;;
  Darwin-x86_64) host_target=x86_64-apple-darwin host_npm=darwin-x64 ;;
  Darwin-arm64) host_target=aarch64-apple-darwin host_npm=darwin-arm64 ;;
  *) echo "test.sh: no release target for $(uname -s)-$(uname -m)" >&2; exit 1 ;;
esac
archive="agentplex-$host_target.tar.gz"
[ -f "$dist/$archive" ] || { echo "test.sh: $dist has no $archive for this machine" >&2; exit 1; }
echo "testing agentplex $version in $dist ($host_target)"

if command -v sha256sum >/dev/null 2>&1; then
  sha256_check() { sha256sum -c --status "$@"; }
else
  sha256_check() { shasum -a 256 -c --status "$@"; }
fi

# ---- archives -------------------------------------------------------------------

# in_dir DIR CMD...: runs CMD in DIR.
in_dir() {
  local dir="$1"
  shift
  (cd "$dir" && "$@")
}

check "SHA256SUMS verifies" in_dir "$dist" sha256_check SHA256SUMS
for a in "$dist"/agentplex-*.tar.gz; do
  name="${a##*/}"
  check "$name.sha256 verifies" in_dir "$dist" sha256_check "$name.sha256"
  listing="$(tar -tvzf "$a")"
  entries="$(tar -tzf "$a" | sort | tr '\n' ' ')"
  if [ "$entries" = "LICENSE README.md agentplex sandbox-agent " ] && [[ "$listing" == *"-rwxr-xr-x"*" agentplex"* ]] &&
    [[ "$listing" == *"sandbox-agent -> agentplex"* ]]; then
    pass "$name holds agentplex (mode 755), sandbox-agent (a link to it), LICENSE, README.md"
  else
    fail "$name holds agentplex (mode 755), sandbox-agent (a link to it), LICENSE, README.md" "$entries"
  fi
  if [[ "$name" == *linux* ]] && command -v file >/dev/null 2>&1; then
    mkdir -p "$tmp/unpack-$name"
    tar -xzf "$a" -C "$tmp/unpack-$name"
    desc="$(file -b "$tmp/unpack-$name/agentplex")"
    if [[ "$desc" == ELF* && "$desc" != *interpreter* ]]; then
      pass "$name: the binary is static"
    else
      fail "$name: the binary is static" "$desc"
    fi
  fi
done
# The host's archive, unpacked: both names run and say the version.
unpacked="$tmp/unpack-host"
mkdir -p "$unpacked"
tar -xzf "$dist/$archive" -C "$unpacked"
for name in agentplex sandbox-agent; do
  got="$("$unpacked/$name" --version 2>&1 | head -n 1 || true)"
  if [[ "$got" == "agentplex $version"* ]]; then
    pass "$archive: $name --version: $got"
  else
    fail "$archive: $name --version starts with 'agentplex $version'" "$got"
  fi
done

# ---- install.sh: the script itself ------------------------------------------------

if command -v dash >/dev/null 2>&1; then
  check "install.sh parses under dash (dash -n)" dash -n "$dist/install.sh"
else
  check "install.sh parses (sh -n)" sh -n "$dist/install.sh"
fi
if command -v shellcheck >/dev/null 2>&1; then
  check "install.sh passes shellcheck -s sh" shellcheck -s sh "$dist/install.sh"
else
  skip "shellcheck -s sh install.sh (shellcheck is not installed)"
fi
if out="$(sh "$dist/install.sh" --help 2>&1)" && [[ "$out" == *--dir*AGENTPLEX_BIN_DIR* &&
  "$out" == *--base-url*AGENTPLEX_BASE_URL* && "$out" == *--version*AGENTPLEX_VERSION* ]]; then
  pass "install.sh --help describes --dir, --base-url, --version and their variables"
else
  fail "install.sh --help describes --dir, --base-url, --version and their variables" "$out"
fi
if ! sh "$dist/install.sh" --bogus >"$tmp/out" 2>"$tmp/err" && [ "$(lines "$tmp/err")" = 1 ] && grep -q "unknown argument" "$tmp/err"; then
  pass "install.sh --bogus: one-line error, non-zero exit"
else
  fail "install.sh --bogus: one-line error, non-zero exit" "$(cat "$tmp/err")"
fi
# Without --base-url, install.sh (as release.sh writes it without --base-url) names none.
for script in "$dist/install.sh" "$root/scripts/install.sh"; do
  [ -f "$script" ] || continue
  if ! sh "$script" --dir "$tmp/no-url" >"$tmp/out" 2>"$tmp/err" &&
    [ "$(lines "$tmp/err")" = 1 ] && grep -q "no base URL: .*--base-url URL or AGENTPLEX_BASE_URL" "$tmp/err" && [ ! -e "$tmp/no-url" ]; then
    pass "${script#"$root"/} without a base URL: one line asking for one, nothing installed"
  else
    fail "${script#"$root"/} without a base URL: one line asking for one, nothing installed" "$(cat "$tmp/err")"
  fi
done
# An unsupported OS: a uname that says FreeBSD, first on PATH.
mkdir -p "$tmp/fake-uname"
printf '#!/bin/sh\ncase "$1" in -s) echo FreeBSD ;; *) echo amd64 ;; esac\n' >"$tmp/fake-uname/uname"
chmod 755 "$tmp/fake-uname/uname"
if ! PATH="$tmp/fake-uname:$PATH" sh "$dist/install.sh" --dir "$tmp/freebsd" --base-url http://127.0.0.1:9 >"$tmp/out" 2>"$tmp/err" &&
  [ "$(lines "$tmp/err")" = 1 ] && grep -q "unsupported operating system: FreeBSD" "$tmp/err" && [ ! -e "$tmp/freebsd" ]; then
  pass "install.sh on FreeBSD: one-line 'unsupported operating system' error"
else
  fail "install.sh on FreeBSD: one-line 'unsupported operating system' error" "$(cat "$tmp/err")"
fi

# ---- install.sh against dist served on loopback -----------------------------------

# www/good is dist itself, also at www/v<version>; www/bad-sum has an altered .sha256;
# www/bad-archive a corrupt archive.
www="$tmp/www"
mkdir -p "$www/bad-sum" "$www/bad-archive"
ln -s "$dist" "$www/good"
ln -s "$dist" "$www/v$version"
for d in bad-sum bad-archive; do cp "$dist/install.sh" "$dist/$archive" "$dist/$archive.sha256" "$www/$d/"; done
printf '%s  %s\n' "$(printf 'not the archive' | { sha256sum 2>/dev/null || shasum -a 256; } | cut -d' ' -f1)" "$archive" >"$www/bad-sum/$archive.sha256"
printf 'corrupt' >>"$www/bad-archive/$archive"

port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
python3 -m http.server --bind 127.0.0.1 --directory "$www" "$port" >"$tmp/http.log" 2>&1 &
server_pid=$!
base="http://127.0.0.1:$port"
for _ in $(seq 1 100); do
  curl -fsS -o /dev/null "$base/good/install.sh" 2>/dev/null && break
  sleep 0.1
done

# installed_ok DIR: DIR holds the executable agentplex and the link sandbox-agent to it,
# nothing else, and both names say this version.
installed_ok() {
  [ "$(ls -A "$1" 2>/dev/null | tr '\n' ' ')" = "agentplex sandbox-agent " ] && [ -x "$1/agentplex" ] &&
    [ "$(readlink "$1/sandbox-agent")" = agentplex ] &&
    [[ "$("$1/agentplex" --version 2>&1 | head -n 1)" == "agentplex $version"* ]] &&
    [[ "$("$1/sandbox-agent" --version 2>&1 | head -n 1)" == "agentplex $version"* ]]
}

# (a) A fresh install with the environment variables (curl, sha256sum).
dir_a="$tmp/a/bin"
mkdir -p "$tmp/tmpdir-a"
if AGENTPLEX_BASE_URL="$base/good" AGENTPLEX_BIN_DIR="$dir_a" TMPDIR="$tmp/tmpdir-a" \
  sh "$dist/install.sh" >"$tmp/out" 2>"$tmp/err" && [ ! -s "$tmp/err" ]; then
  pass "install.sh installs from AGENTPLEX_BASE_URL into AGENTPLEX_BIN_DIR, nothing on stderr"
else
  fail "install.sh installs from AGENTPLEX_BASE_URL into AGENTPLEX_BIN_DIR, nothing on stderr" "$(cat "$tmp/err")"
fi
check "the bin dir holds agentplex and sandbox-agent (a link to it), both say $version" installed_ok "$dir_a"
got="$("$dir_a/agentplex" --version 2>&1 | head -n 1 || true)"
if grep -q "installed agentplex $version.* at $dir_a/agentplex (and $dir_a/sandbox-agent, a link to it)" "$tmp/out" &&
  grep -q "is not on PATH" "$tmp/out"; then
  pass "install.sh says the version, both paths, and that the dir is not on PATH"
else
  fail "install.sh says the version, both paths, and that the dir is not on PATH" "$(tr '\n' '|' <"$tmp/out")"
fi
check "install.sh leaves no temp files" test -z "$(ls -A "$tmp/tmpdir-a")"

# The 0.2 variables still work, with one note each on stderr naming the new one.
dir_old="$tmp/old-vars/bin"
if SANDBOX_AGENT_BASE_URL="$base/good" SANDBOX_AGENT_INSTALL_DIR="$dir_old" sh "$dist/install.sh" >"$tmp/out" 2>"$tmp/err" &&
  installed_ok "$dir_old" && [ "$(lines "$tmp/err")" = 2 ] &&
  grep -q "SANDBOX_AGENT_BASE_URL is deprecated.*AGENTPLEX_BASE_URL" "$tmp/err" &&
  grep -q "SANDBOX_AGENT_INSTALL_DIR is deprecated.*AGENTPLEX_BIN_DIR" "$tmp/err"; then
  pass "SANDBOX_AGENT_BASE_URL and SANDBOX_AGENT_INSTALL_DIR are read, with a note each"
else
  fail "SANDBOX_AGENT_BASE_URL and SANDBOX_AGENT_INSTALL_DIR are read, with a note each" "$(cat "$tmp/err")"
fi

# A base URL stamped in (as release.sh --base-url does) with {version}; and --base-url with it.
sed "s|^AGENTPLEX_BASE_URL_DEFAULT=\"@BASE_URL@\"\$|AGENTPLEX_BASE_URL_DEFAULT=\"$base/v{version}\"|" "$dist/install.sh" >"$tmp/stamped.sh"
if sh "$tmp/stamped.sh" --dir "$tmp/stamped/bin" >"$tmp/out" 2>"$tmp/err" && installed_ok "$tmp/stamped/bin" &&
  sh "$dist/install.sh" --dir "$tmp/templated/bin" --base-url "$base/v{version}" --version "v$version" >"$tmp/out" 2>"$tmp/err" &&
  installed_ok "$tmp/templated/bin"; then
  pass "a stamped base URL needs no flag; {version} in the base URL is the version"
else
  fail "a stamped base URL needs no flag; {version} in the base URL is the version" "$(cat "$tmp/err")"
fi

# A release of another version than the one asked for: refused, nothing installed.
if ! AGENTPLEX_VERSION=0.0.1 sh "$dist/install.sh" --dir "$tmp/other/bin" --base-url "$base/good" >"$tmp/out" 2>"$tmp/err" &&
  [ "$(lines "$tmp/err")" = 1 ] && grep -q "is agentplex $version, not agentplex 0.0.1" "$tmp/err" && [ -z "$(ls -A "$tmp/other/bin" 2>/dev/null)" ]; then
  pass "AGENTPLEX_VERSION=0.0.1 against a $version release: one-line refusal, nothing installed"
else
  fail "AGENTPLEX_VERSION=0.0.1 against a $version release: one-line refusal, nothing installed" "$(cat "$tmp/err")"
fi

# An existing sandbox-agent: another program by that name is kept; a 0.2 binary of ours is replaced.
mkdir -p "$tmp/foreign/bin" "$tmp/old/bin"
printf '#!/bin/sh\necho "sandbox-agent 0.1.11"\n' >"$tmp/foreign/bin/sandbox-agent"
printf '#!/bin/sh\necho "sandbox-agent 0.2.0 (0123456789ab %s)"\n' "$host_target" >"$tmp/old/bin/sandbox-agent"
chmod 755 "$tmp/foreign/bin/sandbox-agent" "$tmp/old/bin/sandbox-agent"
cp "$tmp/foreign/bin/sandbox-agent" "$tmp/foreign-before"
if sh "$dist/install.sh" --dir "$tmp/foreign/bin" --base-url "$base/good" >"$tmp/out" 2>"$tmp/err" &&
  cmp -s "$tmp/foreign-before" "$tmp/foreign/bin/sandbox-agent" && [ -x "$tmp/foreign/bin/agentplex" ] &&
  grep -q "kept $tmp/foreign/bin/sandbox-agent, which is not agentplex" "$tmp/out"; then
  pass "a sandbox-agent that is another program is kept, with a note; agentplex is installed"
else
  fail "a sandbox-agent that is another program is kept, with a note; agentplex is installed" "$(cat "$tmp/out" "$tmp/err")"
fi
check "the sandbox-agent of a 0.2 install is replaced by the link" \
  sh -c 'sh "$1" --dir "$2" --base-url "$3" >/dev/null 2>&1' _ "$dist/install.sh" "$tmp/old/bin" "$base/good"
check "... and the bin dir then holds both names of $version" installed_ok "$tmp/old/bin"

# Flags instead of variables, under dash, with only wget and shasum: reinstalls over (a).
if command -v dash >/dev/null 2>&1 && command -v wget >/dev/null 2>&1 && command -v shasum >/dev/null 2>&1; then
  tools="$tmp/tools"
  mkdir -p "$tools"
  for t in dash sh uname tar gzip mktemp wget shasum perl tr tail head mkdir cp chmod mv rm cat ln readlink; do
    p="$(command -v "$t" || true)"
    [ -n "$p" ] && ln -sf "$p" "$tools/$t"
  done
  if env PATH="$tools" dash "$dist/install.sh" --dir "$dir_a" --base-url "$base/good/" >"$tmp/out" 2>"$tmp/err" &&
    [ "$("$dir_a/agentplex" --version | head -n 1)" = "$got" ] && installed_ok "$dir_a"; then
    pass "install.sh --dir --base-url under dash with wget and shasum (no curl, no sha256sum), over an existing install"
  else
    fail "install.sh --dir --base-url under dash with wget and shasum (no curl, no sha256sum), over an existing install" "$(cat "$tmp/err")"
  fi
else
  skip "install.sh with wget and shasum (dash, wget or shasum is not installed)"
fi

# Only BusyBox (as on Alpine): its sh, wget, sha256sum, tar and mktemp.
if command -v busybox >/dev/null 2>&1; then
  bb="$tmp/busybox"
  mkdir -p "$bb"
  for t in sh uname tar gzip mktemp wget sha256sum tr tail head mkdir cp chmod mv rm cat ln readlink; do
    ln -sf "$(command -v busybox)" "$bb/$t"
  done
  if env -i PATH="$bb" HOME="$tmp/bb-home" sh "$dist/install.sh" --base-url "$base/good" >"$tmp/out" 2>"$tmp/err" &&
    installed_ok "$tmp/bb-home/.local/bin"; then
    pass "install.sh with only BusyBox (sh, wget, sha256sum, tar) into the default ~/.local/bin"
  else
    fail "install.sh with only BusyBox (sh, wget, sha256sum, tar) into the default ~/.local/bin" "$(cat "$tmp/err")"
  fi
else
  skip "install.sh with only BusyBox (busybox is not installed)"
fi

# (b) A .sha256 that does not match: stop, one line naming both hashes, nothing installed.
dir_b="$tmp/b/bin"
mkdir -p "$tmp/tmpdir-b"
if ! AGENTPLEX_BASE_URL="$base/bad-sum" AGENTPLEX_BIN_DIR="$dir_b" TMPDIR="$tmp/tmpdir-b" \
  sh "$dist/install.sh" >"$tmp/out" 2>"$tmp/err"; then
  pass "install.sh with a mismatching .sha256 exits non-zero"
else
  fail "install.sh with a mismatching .sha256 exits non-zero"
fi
if [ "$(lines "$tmp/err")" = 1 ] && grep -q "checksum mismatch for $archive: expected sha256 [0-9a-f]\{64\}, got [0-9a-f]\{64\}" "$tmp/err"; then
  pass "the mismatch is one line naming the expected and actual checksums"
else
  fail "the mismatch is one line naming the expected and actual checksums" "$(cat "$tmp/err")"
fi
if [ -z "$(ls -A "$dir_b" 2>/dev/null)" ] && [ -z "$(ls -A "$tmp/tmpdir-b")" ]; then
  pass "after the mismatch the bin dir holds nothing and no temp file is left"
else
  fail "after the mismatch the bin dir holds nothing and no temp file is left" "$(ls -A "$dir_b" "$tmp/tmpdir-b" 2>&1 | tr '\n' ' ')"
fi

# A corrupt archive over the existing install of (a): the old binary stays as it was.
cp "$dir_a/agentplex" "$tmp/before"
if ! AGENTPLEX_BASE_URL="$base/bad-archive" AGENTPLEX_BIN_DIR="$dir_a" sh "$dist/install.sh" >"$tmp/out" 2>"$tmp/err" &&
  grep -q "checksum mismatch" "$tmp/err" && [ "$(lines "$tmp/err")" = 1 ] &&
  cmp -s "$tmp/before" "$dir_a/agentplex" && installed_ok "$dir_a"; then
  pass "a corrupt archive over an existing install: checksum error, old binary untouched"
else
  fail "a corrupt archive over an existing install: checksum error, old binary untouched" "$(cat "$tmp/err")"
fi

# A 404: one line naming the URL.
if ! AGENTPLEX_BASE_URL="$base/missing" AGENTPLEX_BIN_DIR="$tmp/c/bin" sh "$dist/install.sh" >"$tmp/out" 2>"$tmp/err" &&
  [ "$(lines "$tmp/err")" = 1 ] && grep -q "download failed: $base/missing/$archive.*404" "$tmp/err" && [ ! -e "$tmp/c" ]; then
  pass "a missing archive (404): one-line error naming the URL, nothing installed"
else
  fail "a missing archive (404): one-line error naming the URL, nothing installed" "$(cat "$tmp/err")"
fi

# ---- npm packages, offline ----------------------------------------------------------

cli_tgz="$dist/npm/agentplex-cli-$version.tgz"
platform_tgz="$dist/npm/agentplex-cli-$host_npm-$version.tgz"
if [ -f "$cli_tgz" ] && [ -f "$platform_tgz" ]; then
  pass "dist/npm holds agentplex-cli and agentplex-cli-$host_npm $version"
else
  fail "dist/npm holds agentplex-cli and agentplex-cli-$host_npm $version" "$(ls "$dist/npm" 2>&1 | tr '\n' ' ')"
fi

# The manifests: versions pinned exactly, os/cpu matching each platform package's name.
manifests_ok="$(node -e '
  const { execFileSync } = require("child_process");
  const [version, ...tgzs] = process.argv.slice(1);
  const read = (tgz) => JSON.parse(execFileSync("tar", ["-xzOf", tgz, "package/package.json"]));
  const problems = [];
  for (const tgz of tgzs) {
    const m = read(tgz);
    if (m.version !== version) problems.push(`${m.name} is ${m.version}`);
    if (m.license !== "Apache-2.0") problems.push(`${m.name} license ${m.license}`);
    if (m.name === "agentplex-cli") {
      const bins = JSON.stringify(m.bin);
      if (bins !== JSON.stringify({ agentplex: "bin/agentplex.js", "sandbox-agent": "bin/agentplex.js" })) problems.push(`bin ${bins}`);
      const deps = m.optionalDependencies || {};
      if (Object.keys(deps).length === 0) problems.push("no optionalDependencies");
      for (const [d, v] of Object.entries(deps)) if (v !== version) problems.push(`${d}@${v} not pinned to ${version}`);
    } else {
      const [, os, cpu] = m.name.match(/^agentplex-cli-(linux|darwin)-(x64|arm64)$/) || [];
      if (!os || m.os?.[0] !== os || m.cpu?.[0] !== cpu) problems.push(`${m.name} os/cpu ${m.os} ${m.cpu}`);
      const listing = execFileSync("tar", ["-tvzf", tgz]).toString();
      if (!/^-rwxr-xr-x .* package\/bin\/agentplex$/m.test(listing)) problems.push(`${m.name}: bin/agentplex not mode 755`);
    }
  }
  console.log(problems.join("; ") || "ok");
' "$version" "$dist"/npm/*.tgz 2>&1 || true)"
if [ "$manifests_ok" = ok ]; then
  pass "npm manifests: one version, bins agentplex and sandbox-agent, optionalDependencies pinned, os/cpu, executable binaries"
else
  fail "npm manifests: one version, bins agentplex and sandbox-agent, optionalDependencies pinned, os/cpu, executable binaries" "$manifests_ok"
fi

# An empty project, an empty npm cache, a registry address nothing listens on: no network.
proj="$tmp/project"
mkdir -p "$proj"
export npm_config_cache="$tmp/npm-cache" npm_config_registry="http://127.0.0.1:9/" \
  npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
(cd "$proj" && npm init -y >/dev/null)
if (cd "$proj" && npm install --offline --no-audit --no-fund "$platform_tgz" "$cli_tgz" >"$tmp/out" 2>"$tmp/err"); then
  pass "npm install --offline of the two tarballs into an empty project"
else
  fail "npm install --offline of the two tarballs into an empty project" "$(tail -n 3 "$tmp/err" | tr '\n' ' ')"
fi
# Both commands, and the package name (npx runs a package whose bins are all one file).
for name in agentplex sandbox-agent agentplex-cli; do
  got="$(in_dir "$proj" npx --offline "$name" --version 2>&1 | head -n 1 || true)"
  if [[ "$got" == "agentplex $version"* ]]; then
    pass "npx --offline $name --version: $got"
  else
    fail "npx --offline $name --version starts with 'agentplex $version'" "$got"
  fi
done
# The binary is called by the name it was run by (its --help says so).
for name in agentplex sandbox-agent; do
  got="$("$proj/node_modules/.bin/$name" --help 2>&1 | grep -m 1 'Usage:' || true)"
  check "$name --help via npm says 'Usage: $name'" test "${got#Usage: "$name" }" != "$got"
done

shim="$proj/node_modules/.bin/agentplex"
platform_bin="$proj/node_modules/agentplex-cli-$host_npm/bin/agentplex"
check "the platform package's binary is executable after install" test -x "$platform_bin"

# (d) Exit codes: the shim exits with the binary's code.
direct=0
"$platform_bin" definitely-not-a-command >/dev/null 2>&1 || direct=$?
via=0
in_dir "$proj" npx --offline agentplex definitely-not-a-command >/dev/null 2>&1 || via=$?
if [ "$via" -ne 0 ] && [ "$via" = "$direct" ]; then
  pass "npx agentplex definitely-not-a-command exits $via, like the binary"
else
  fail "npx agentplex definitely-not-a-command exits like the binary" "shim $via, binary $direct"
fi

# AGENTPLEX_BIN: stand-ins that exit 7, die of SIGTERM, or wait for a forwarded SIGTERM.
printf '#!/bin/sh\nexit 7\n' >"$tmp/exit7"
printf '#!/bin/sh\nkill -TERM $$\nsleep 5\n' >"$tmp/selfterm"
printf '#!/bin/sh\ntrap '\''echo "$*" >"$MARK"; exit 0'\'' TERM\n: >"$READY"\nwhile :; do sleep 0.1; done\n' >"$tmp/waiter"
chmod 755 "$tmp/exit7" "$tmp/selfterm" "$tmp/waiter"
rc=0
AGENTPLEX_BIN="$tmp/exit7" "$shim" >/dev/null 2>&1 || rc=$?
check "AGENTPLEX_BIN runs that binary; its exit code 7 passes through" test "$rc" = 7
rc=0
SANDBOX_AGENT_BIN="$tmp/exit7" "$proj/node_modules/.bin/sandbox-agent" >/dev/null 2>"$tmp/err" || rc=$?
if [ "$rc" = 7 ] && [ "$(lines "$tmp/err")" = 1 ] && grep -q "SANDBOX_AGENT_BIN is deprecated.*AGENTPLEX_BIN" "$tmp/err"; then
  pass "SANDBOX_AGENT_BIN (0.2) is still read, with a one-line note"
else
  fail "SANDBOX_AGENT_BIN (0.2) is still read, with a one-line note" "status $rc: $(cat "$tmp/err")"
fi
rc=0
AGENTPLEX_BIN="$tmp/selfterm" deadline 20 "$shim" >/dev/null 2>&1 || rc=$?
check "a binary killed by SIGTERM: the shim ends by SIGTERM too (status 143)" test "$rc" = 143
rm -f "$tmp/mark" "$tmp/ready"
MARK="$tmp/mark" READY="$tmp/ready" AGENTPLEX_BIN="$tmp/waiter" "$shim" a b >/dev/null 2>&1 &
shim_pid=$!
for _ in $(seq 1 100); do [ -e "$tmp/ready" ] && break; sleep 0.1; done
kill -TERM "$shim_pid" 2>/dev/null || true
rc=0
for _ in $(seq 1 100); do kill -0 "$shim_pid" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$shim_pid" 2>/dev/null; then stop "$shim_pid"; rc=timeout; else wait "$shim_pid" || rc=$?; fi
if [ "$rc" = 0 ] && [ "$(cat "$tmp/mark" 2>/dev/null)" = "a b" ]; then
  pass "SIGTERM to the shim reaches the binary, which gets the arguments; its exit 0 passes through"
else
  fail "SIGTERM to the shim reaches the binary, which gets the arguments; its exit 0 passes through" "status $rc"
fi
rc=0
AGENTPLEX_BIN="$tmp/does-not-exist" "$shim" --version >/dev/null 2>"$tmp/err" || rc=$?
if [ "$rc" = 1 ] && [ "$(lines "$tmp/err")" = 1 ] && grep -q AGENTPLEX_BIN "$tmp/err"; then
  pass "AGENTPLEX_BIN naming no file: one-line error, exit 1"
else
  fail "AGENTPLEX_BIN naming no file: one-line error, exit 1" "$(cat "$tmp/err")"
fi

# The real binary as a server: SIGTERM to the shim stops it and the shim.
server_port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
mkdir -p "$tmp/home"
HOME="$tmp/home" "$shim" server --no-token --host 127.0.0.1 --port "$server_port" --ephemeral \
  --data-dir "$tmp/home/data" >"$tmp/server.log" 2>&1 &
shim_pid=$!
child=""
for _ in $(seq 1 50); do
  child="$(children_of "$shim_pid" | head -n 1)"
  [ -n "$child" ] && break
  sleep 0.1
done
# A daemon answers /v1/health; a stand-in binary does not (then this waits 3 s).
health=no
for _ in $(seq 1 30); do
  if curl -fsS -o /dev/null "http://127.0.0.1:$server_port/v1/health" 2>/dev/null; then health=yes; break; fi
  sleep 0.1
done
kill -TERM "$shim_pid" 2>/dev/null || true
for _ in $(seq 1 150); do kill -0 "$shim_pid" 2>/dev/null || break; sleep 0.1; done
if [ -n "$child" ] && ! kill -0 "$shim_pid" 2>/dev/null && ! kill -0 "$child" 2>/dev/null; then
  rc=0
  wait "$shim_pid" || rc=$?
  pass "agentplex server via the shim (health answered: $health): SIGTERM stops the binary and the shim (status $rc)"
else
  fail "agentplex server via the shim: SIGTERM stops the binary and the shim" "child ${child:-none}; $(tail -n 2 "$tmp/server.log" | tr '\n' ' ')"
  stop "$shim_pid"
  if [ -n "$child" ]; then kill "$child" 2>/dev/null || true; fi
fi

# Without the platform package (npm --omit=optional): one clear line, exit 1.
mv "$proj/node_modules/agentplex-cli-$host_npm" "$tmp/aside"
rc=0
"$shim" --version >/dev/null 2>"$tmp/err" || rc=$?
mv "$tmp/aside" "$proj/node_modules/agentplex-cli-$host_npm"
if [ "$rc" = 1 ] && [ "$(lines "$tmp/err")" = 1 ] && grep -q "agentplex-cli-$host_npm is not installed" "$tmp/err" &&
  grep -q -- "--no-optional" "$tmp/err" && grep -q "install script" "$tmp/err"; then
  pass "platform package missing: one line naming it and the fixes, exit 1"
else
  fail "platform package missing: one line naming it and the fixes, exit 1" "status $rc: $(cat "$tmp/err")"
fi

# An unsupported platform: says so in one line.
rc=0
node -e 'Object.defineProperty(process, "arch", { value: "mips" }); require(process.argv[1])' \
  "$proj/node_modules/agentplex-cli/bin/agentplex.js" >/dev/null 2>"$tmp/err" || rc=$?
if [ "$rc" = 1 ] && [ "$(lines "$tmp/err")" = 1 ] && grep -q "no prebuilt binary of agentplex-cli for $(uname -s | tr '[:upper:]' '[:lower:]')-mips" "$tmp/err"; then
  pass "an unsupported platform: one-line error, exit 1"
else
  fail "an unsupported platform: one-line error, exit 1" "status $rc: $(cat "$tmp/err")"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
