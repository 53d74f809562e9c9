#!/usr/bin/env bash
# The release pipeline end to end in seconds, without building the daemon: a
# static stand-in binary (stand-in.c, built with cc -static) goes through
# scripts/release.sh --binary, then testing/release/test.sh checks the result.
# Before that, release.sh must refuse a dynamically linked binary, a binary of
# another version or name, a binary of another architecture and an unknown target,
# must replace the stale files of an earlier run, and must stamp --base-url into
# install.sh.
#
#   testing/release/with-stand-in.sh [OUT]    (OUT: where dist goes; default a temp dir)
#
# Linux only (it needs `cc -static`).
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
here="$root/testing/release"
[ "$(uname -s)" = Linux ] || { echo "with-stand-in.sh: Linux only" >&2; exit 1; }
command -v cc >/dev/null 2>&1 || { echo "with-stand-in.sh: a C compiler (cc) is needed" >&2; exit 1; }

tmp="$(mktemp -d "${TMPDIR:-/tmp}/agentplex-stand-in.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
out="${1:-$tmp/dist}"

version="$(awk '
  /^[ \t]*\[/ { section = $0; gsub(/[ \t]/, "", section); next }
  section == "[workspace.package]" && /^[ \t]*version[ \t]*=/ {
    sub(/^[^=]*=[ \t]*"/, ""); sub(/".*/, ""); print; exit
  }' "$root/Cargo.toml")"
case "$(uname -m)" in
  x86_64) target=x86_64-unknown-linux-musl other=aarch64-unknown-linux-musl ;;
  aarch64 | arm64) target=aarch64-unknown-linux-musl other=x86_64-unknown-linux-musl ;;
  *) echo "with-stand-in.sh: no release target for $(uname -m)" >&2; exit 1 ;;
esac

# stand_in FILE NAME VERSION [CC FLAGS...]
stand_in() {
  local file="$1" name="$2" v="$3"
  shift 3
  cc "$@" -Os -s -DNAME="\"$name\"" -DVERSION="\"$v\"" -DTARGET="\"$target\"" "$here/stand-in.c" -o "$file"
}
stand_in "$tmp/agentplex" agentplex "$version" -static
stand_in "$tmp/dynamic" agentplex "$version"
stand_in "$tmp/other-version" agentplex "0.0.0-other" -static
stand_in "$tmp/old-name" sandbox-agent "$version" -static

passed=0
failed=0
# refused NAME MESSAGE ARGS...: release.sh ARGS fails, its last line holds MESSAGE
# (the lines before are progress notes), and it wrote nothing.
refused() {
  local name="$1" message="$2"
  shift 2
  if ! "$root/scripts/release.sh" "$@" --out "$tmp/refused" >/dev/null 2>"$tmp/err" &&
    tail -n 1 "$tmp/err" | grep -q -- "^release.sh: .*$message" && [ ! -e "$tmp/refused" ]; then
    passed=$((passed + 1))
    printf 'ok    release.sh refuses %s\n' "$name"
  else
    failed=$((failed + 1))
    printf 'FAIL  release.sh refuses %s: %s\n' "$name" "$(tail -n 1 "$tmp/err")"
  fi
}
refused "a dynamically linked binary" "is not statically linked" --binary "$target=$tmp/dynamic"
refused "a binary of another version" "expected it to start with 'agentplex $version'" --binary "$target=$tmp/other-version"
refused "a binary that calls itself sandbox-agent (0.2)" "expected it to start with 'agentplex $version'" --binary "$target=$tmp/old-name"
refused "a binary of another architecture" "is not a $other executable" --binary "$other=$tmp/agentplex"
refused "an unknown target" "unsupported target" --binary "riscv64gc-unknown-linux-musl=$tmp/agentplex"
refused "a --base-url that is not http(s)" "needs an http:// or https:// URL" --base-url ftp://example.invalid --binary "$target=$tmp/agentplex"
refused "a --base-url with a quote" "has a character a URL does not need" --base-url 'https://example.invalid/"x' --binary "$target=$tmp/agentplex"
refused "a missing binary" "does not exist" --binary "$target=$tmp/nothing-here"

# ok_if NAME CMD...: one passed check when CMD succeeds, else one failed.
ok_if() {
  local name="$1"
  shift
  if "$@"; then
    passed=$((passed + 1))
    echo "ok    $name"
  else
    failed=$((failed + 1))
    echo "FAIL  $name"
  fi
}

# --base-url is stamped into install.sh as its default ({version} left for install.sh).
"$root/scripts/release.sh" --binary "$target=$tmp/agentplex" --out "$tmp/stamped" \
  --base-url 'https://downloads.example.invalid/agentplex/v{version}/' 2>/dev/null >/dev/null
ok_if "release.sh --base-url stamps the URL into install.sh" \
  grep -qx 'AGENTPLEX_BASE_URL_DEFAULT="https://downloads.example.invalid/agentplex/v{version}"' "$tmp/stamped/install.sh"

# Stale archives of an earlier run go (with the name before 0.3 too); a file release.sh did not write stays.
mkdir -p "$out/npm"
echo stale >"$out/agentplex-$other.tar.gz"
echo stale >"$out/sandbox-agent-$target.tar.gz"
echo stale >"$out/sandbox-agent-$target.tar.gz.sha256"
echo stale >"$out/npm/agentplex-cli-0.0.1.tgz"
echo keep >"$out/notes.txt"
"$root/scripts/release.sh" --binary "$target=$tmp/agentplex" --out "$out"
ok_if "release.sh removes the stale files of an earlier run and keeps others" \
  test ! -e "$out/agentplex-$other.tar.gz" -a ! -e "$out/sandbox-agent-$target.tar.gz" -a \
  ! -e "$out/sandbox-agent-$target.tar.gz.sha256" -a ! -e "$out/npm/agentplex-cli-0.0.1.tgz" -a -f "$out/notes.txt"
ok_if "the unstamped install.sh in dist has no base URL" grep -qx 'AGENTPLEX_BASE_URL_DEFAULT="@BASE_URL@"' "$out/install.sh"
rm -f "$out/notes.txt"
echo "release.sh: $passed passed, $failed failed"
echo

"$here/test.sh" "$out"
[ "$failed" -eq 0 ]
