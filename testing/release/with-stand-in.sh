#!/usr/bin/env bash
# The release pipeline end to end in seconds, without building the daemon: a
# static stand-in binary (stand-in.c, built with cc -static) goes through
# scripts/release.sh --binary, then testing/release/test.sh checks the result.
# Before that, release.sh must refuse a dynamically linked binary, a binary of
# another version, a binary of another architecture and an unknown target, and
# must replace the stale files of an earlier run.
#
#   testing/release/with-stand-in.sh [OUT]    (OUT: where dist goes; default a temp dir)
#
# Linux only (it needs `cc -static`).
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
here="$root/testing/release"
[ "$(uname -s)" = Linux ] || { echo "with-stand-in.sh: Linux only" >&2; exit 1; }
command -v cc >/dev/null 2>&1 || { echo "with-stand-in.sh: a C compiler (cc) is needed" >&2; exit 1; }

tmp="$(mktemp -d "${TMPDIR:-/tmp}/sandbox-agent-stand-in.XXXXXX")"
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

# stand_in FILE VERSION [CC FLAGS...]
stand_in() {
  local file="$1" v="$2"
  shift 2
  cc "$@" -Os -s -DVERSION="\"$v\"" -DTARGET="\"$target\"" "$here/stand-in.c" -o "$file"
}
stand_in "$tmp/sandbox-agent" "$version" -static
stand_in "$tmp/dynamic" "$version"
stand_in "$tmp/other-version" "0.0.0-other" -static

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
refused "a binary of another version" "expected it to start with 'sandbox-agent $version'" --binary "$target=$tmp/other-version"
refused "a binary of another architecture" "is not a $other executable" --binary "$other=$tmp/sandbox-agent"
refused "an unknown target" "unsupported target" --binary "riscv64gc-unknown-linux-musl=$tmp/sandbox-agent"
refused "a missing binary" "does not exist" --binary "$target=$tmp/nothing-here"

# A stale archive of an earlier run goes; a file release.sh did not write stays.
mkdir -p "$out/npm"
echo stale >"$out/sandbox-agent-$other.tar.gz"
echo stale >"$out/npm/agentplex-cli-0.0.1.tgz"
echo keep >"$out/notes.txt"
"$root/scripts/release.sh" --binary "$target=$tmp/sandbox-agent" --out "$out"
if [ ! -e "$out/sandbox-agent-$other.tar.gz" ] && [ ! -e "$out/npm/agentplex-cli-0.0.1.tgz" ] && [ -f "$out/notes.txt" ]; then
  passed=$((passed + 1))
  echo "ok    release.sh removes the stale files of an earlier run and keeps others"
else
  failed=$((failed + 1))
  echo "FAIL  release.sh removes the stale files of an earlier run and keeps others"
fi
rm -f "$out/notes.txt"
echo "release.sh: $passed passed, $failed failed"
echo

"$here/test.sh" "$out"
[ "$failed" -eq 0 ]
