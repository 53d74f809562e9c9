#!/bin/sh
# Installs the sandbox-agent binary (static, one file) for this machine.
#
#   curl -fsSL <release base URL>/install.sh | sh
#   curl -fsSL <release base URL>/install.sh | sh -s -- --dir /usr/local/bin
#
# Downloads sandbox-agent-<target>.tar.gz and its .sha256 from the base URL,
# checks the SHA-256, and moves the binary into the install dir with one rename:
# a failure at any step leaves the install dir as it was. POSIX sh only.
#
# Settings (a flag wins over the environment variable):
#   --dir DIR        SANDBOX_AGENT_INSTALL_DIR  where the binary goes [~/.local/bin]
#   --base-url URL   SANDBOX_AGENT_BASE_URL     where the archives are (a served dist/ works)
#   --version V      SANDBOX_AGENT_VERSION      release to install [the one this script came with]
set -eu

# Stamped by scripts/release.sh; the repository copy keeps the placeholder.
SANDBOX_AGENT_VERSION_DEFAULT="@VERSION@"
RELEASES_URL="https://github.com/agentplex/agentplex/releases/download"
BINARY=sandbox-agent

usage() {
  cat <<EOF
Install sandbox-agent, the daemon and CLI that puts one HTTP API over every coding agent.

usage: install.sh [--dir DIR] [--base-url URL] [--version V]

  --dir DIR        install into DIR (env SANDBOX_AGENT_INSTALL_DIR; default ~/.local/bin)
  --base-url URL   download the archives from URL (env SANDBOX_AGENT_BASE_URL;
                   default ${RELEASES_URL}/v<version>)
  --version V      install release V (env SANDBOX_AGENT_VERSION; default: this script's release)
  -h, --help       print this help

The archive for this machine (sandbox-agent-<target>.tar.gz) is checked against its
published SHA-256 before anything is installed.
EOF
}

# One line to stderr, then stop (the EXIT trap removes the temp files).
die() {
  printf 'install.sh: %s\n' "$*" >&2
  exit 1
}

say() {
  printf 'install.sh: %s\n' "$*"
}

has() {
  command -v "$1" >/dev/null 2>&1
}

need_value() {
  if [ "$#" -lt 2 ] || [ -z "$2" ]; then die "$1 needs a value (see --help)"; fi
}

# Temp files: a temp dir, and the staged binary inside the install dir while it
# is being placed. Removed on every exit.
tmp=""
staged=""
cleanup() {
  if [ -n "$staged" ]; then rm -f "$staged"; fi
  if [ -n "$tmp" ]; then rm -rf "$tmp"; fi
}

# download URL FILE: the file, or a one-line error naming the URL and the reason.
download() {
  if [ "$downloader" = curl ]; then
    curl -fsSL --retry 2 -o "$2" "$1" 2>"$tmp/download.err" && return 0
  else
    wget -q -O "$2" "$1" 2>"$tmp/download.err" && return 0
  fi
  reason="$(tail -n 1 "$tmp/download.err" 2>/dev/null | tr -d '\r' || true)"
  die "download failed: $1${reason:+ ($reason)}"
}

# sha256_of FILE: the lowercase hex SHA-256 of FILE.
sha256_of() {
  case "$hasher" in
    sha256sum) sum="$(sha256sum "$1")" ;;
    shasum) sum="$(shasum -a 256 "$1")" ;;
    *) sum="$(openssl dgst -sha256 -r "$1")" ;;
  esac
  printf '%s\n' "${sum%% *}" | tr 'A-F' 'a-f'
}

# Sets install_dir, base_url and version from the flags and the environment.
parse_settings() {
  install_dir="${SANDBOX_AGENT_INSTALL_DIR:-}"
  base_url="${SANDBOX_AGENT_BASE_URL:-}"
  version="${SANDBOX_AGENT_VERSION:-}"

  while [ "$#" -gt 0 ]; do
    case "$1" in
      --dir) need_value "$@"; install_dir="$2"; shift 2 ;;
      --dir=*) install_dir="${1#*=}"; shift ;;
      --base-url) need_value "$@"; base_url="$2"; shift 2 ;;
      --base-url=*) base_url="${1#*=}"; shift ;;
      --version) need_value "$@"; version="$2"; shift 2 ;;
      --version=*) version="${1#*=}"; shift ;;
      -h | --help) usage; exit 0 ;;
      *) die "unknown argument: $1 (see --help)" ;;
    esac
  done

  # A version never contains '@'; the unstamped placeholder does.
  if [ -z "$version" ]; then
    case "$SANDBOX_AGENT_VERSION_DEFAULT" in
      *@*) ;;
      *) version="$SANDBOX_AGENT_VERSION_DEFAULT" ;;
    esac
  fi
  version="${version#v}"

  if [ -z "$base_url" ]; then
    [ -n "$version" ] || die "this install.sh has no release version stamped in: give a base URL (--base-url URL or SANDBOX_AGENT_BASE_URL) or a version (--version V)"
    base_url="${RELEASES_URL}/v${version}"
  fi
  base_url="${base_url%/}"

  if [ -z "$install_dir" ]; then
    [ -n "${HOME:-}" ] || die "HOME is not set: give the install dir with --dir DIR or SANDBOX_AGENT_INSTALL_DIR"
    install_dir="$HOME/.local/bin"
  fi
  case "$install_dir" in
    /*) ;;
    *) install_dir="$(pwd)/$install_dir" ;;
  esac
}

# Sets target to the Rust target triple of this machine's release archive.
detect_target() {
  os="$(uname -s 2>/dev/null || true)"
  arch="$(uname -m 2>/dev/null || true)"
  case "$arch" in
    x86_64 | amd64) arch=x86_64 ;;
    aarch64 | arm64) arch=aarch64 ;;
    *) die "unsupported CPU architecture: ${arch:-unknown} (prebuilt binaries exist for x86_64 and aarch64)" ;;
  esac
  case "$os" in
    Linux) target="${arch}-unknown-linux-musl" ;;
    Darwin)
      # A shell under Rosetta reports x86_64 on Apple silicon: take the native binary.
      if [ "$arch" = x86_64 ] && [ "$(sysctl -n sysctl.proc_translated 2>/dev/null || true)" = 1 ]; then
        arch=aarch64
      fi
      target="${arch}-apple-darwin"
      ;;
    *) die "unsupported operating system: ${os:-unknown} (prebuilt binaries exist for Linux and macOS)" ;;
  esac
}

# Sets downloader and hasher, or stops naming what is missing.
find_tools() {
  for tool in tar gzip mktemp; do
    has "$tool" || die "$tool is needed and was not found on PATH"
  done
  if has curl; then
    downloader=curl
  elif has wget; then
    downloader=wget
  else
    die "curl or wget is needed to download sandbox-agent and neither was found on PATH"
  fi
  if has sha256sum; then
    hasher=sha256sum
  elif has shasum; then
    hasher=shasum
  elif has openssl; then
    hasher=openssl
  else
    die "sha256sum, shasum or openssl is needed to verify the download and none was found on PATH"
  fi
}

# Everything runs from main, called on the last line: a script cut short while
# being piped into sh runs nothing.
main() {
  parse_settings "$@"
  detect_target
  find_tools

  trap cleanup EXIT
  trap 'cleanup; trap - EXIT; exit 129' HUP
  trap 'cleanup; trap - EXIT; exit 130' INT
  trap 'cleanup; trap - EXIT; exit 143' TERM
  tmp="$(mktemp -d "${TMPDIR:-/tmp}/sandbox-agent-install.XXXXXX")" || die "could not create a temp dir"

  # Download the archive and its checksum.
  archive="${BINARY}-${target}.tar.gz"
  url="${base_url}/${archive}"
  say "installing sandbox-agent${version:+ $version} for $target from $base_url"
  download "$url" "$tmp/$archive"
  download "$url.sha256" "$tmp/$archive.sha256"

  # Verify: the .sha256 file is `<hex>  <file name>` (sha256sum's format).
  expected=""
  read -r expected _ <"$tmp/$archive.sha256" || true
  expected="$(printf '%s\n' "$expected" | tr 'A-F' 'a-f')"
  case "$expected" in
    *[!0-9a-f]* | "") die "$url.sha256 does not hold a SHA-256 checksum" ;;
  esac
  [ "${#expected}" -eq 64 ] || die "$url.sha256 does not hold a SHA-256 checksum"
  actual="$(sha256_of "$tmp/$archive")"
  if [ "$actual" != "$expected" ]; then
    die "checksum mismatch for $archive: expected sha256 $expected, got $actual; nothing was installed"
  fi
  say "checksum verified (sha256 $actual)"

  # Unpack in the temp dir.
  mkdir "$tmp/unpacked"
  tar -xzf "$tmp/$archive" -C "$tmp/unpacked" 2>"$tmp/tar.err" ||
    die "could not unpack $archive: $(tail -n 1 "$tmp/tar.err" 2>/dev/null || true)"
  [ -f "$tmp/unpacked/$BINARY" ] || die "$archive holds no $BINARY binary"

  # Place: copy under a temp name in the install dir, then one rename, so the
  # final path holds the old binary or the new one, never a partial file.
  mkdir -p "$install_dir" 2>/dev/null || die "could not create the install dir $install_dir"
  dest="$install_dir/$BINARY"
  staged="$install_dir/.$BINARY.tmp.$$"
  cp "$tmp/unpacked/$BINARY" "$staged" 2>/dev/null || die "could not write to $install_dir (choose another dir with --dir DIR)"
  chmod 755 "$staged" || die "could not make $staged executable"
  mv -f "$staged" "$dest" || die "could not move the binary to $dest"
  staged=""

  # Say what happened.
  installed="$("$dest" --version 2>/dev/null | head -n 1 || true)"
  [ -n "$installed" ] || installed="sandbox-agent${version:+ $version}"
  say "installed $installed at $dest"
  case ":${PATH:-}:" in
    *":$install_dir:"*)
      found="$(command -v "$BINARY" 2>/dev/null || true)"
      if [ -n "$found" ] && [ "$found" != "$dest" ]; then
        say "note: $found comes first on PATH and shadows the binary just installed"
      fi
      ;;
    *)
      say "note: $install_dir is not on PATH; add it with: export PATH=\"$install_dir:\$PATH\""
      ;;
  esac
}

main "$@"
