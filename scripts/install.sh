#!/bin/sh
# Installs agentplex (one static binary) for this machine, with the name sandbox-agent
# beside it (a link, for scripts written for 0.1.x).
#
#   curl -fsSL <base URL>/install.sh | AGENTPLEX_BASE_URL=<base URL> sh
#   sh install.sh --base-url <base URL> --dir /usr/local/bin
#
# The base URL is the folder that holds a release's files: the dist/ folder that
# scripts/release.sh writes, published or mirrored anywhere (a served dist/ works).
# The script downloads agentplex-<target>.tar.gz and its .sha256 from there, checks
# the SHA-256, and moves the binary into the bin dir with one rename: a failure at
# any step leaves the bin dir as it was. POSIX sh only.
#
# Settings (a flag wins over the environment variable):
#   --dir DIR        AGENTPLEX_BIN_DIR    where the binary goes [~/.local/bin]
#   --base-url URL   AGENTPLEX_BASE_URL   where the release files are [stamped in by
#                                         scripts/release.sh --base-url, else required]
#   --version V      AGENTPLEX_VERSION    the release to install [the one this script came with]
# SANDBOX_AGENT_INSTALL_DIR, SANDBOX_AGENT_BASE_URL and SANDBOX_AGENT_VERSION are still
# read, with a note. {version} in the base URL is replaced by the version.
set -eu

# Stamped by scripts/release.sh; the repository copy keeps the placeholders.
AGENTPLEX_VERSION_DEFAULT="@VERSION@"
AGENTPLEX_BASE_URL_DEFAULT="@BASE_URL@"
BINARY=agentplex
ALIAS=sandbox-agent

usage() {
  cat <<EOF
Install agentplex, the daemon and CLI that puts one HTTP API over every coding agent,
and the name $ALIAS beside it.

usage: install.sh [--dir DIR] [--base-url URL] [--version V]

  --dir DIR        install into DIR (env AGENTPLEX_BIN_DIR; default ~/.local/bin)
  --base-url URL   download the release files from URL, the folder holding
                   agentplex-<target>.tar.gz (env AGENTPLEX_BASE_URL; default: $(default_base_url))
  --version V      install release V: {version} in the base URL becomes V, and the
                   archive must hold V (env AGENTPLEX_VERSION; default: $(default_version))
  -h, --help       print this help

The archive for this machine (agentplex-<target>.tar.gz) is checked against its
SHA-256 (the .sha256 file next to it) before anything is installed.
EOF
}

# The stamped defaults, or what stands in for them in --help.
default_base_url() {
  case "$AGENTPLEX_BASE_URL_DEFAULT" in
    @*@) echo "none, required" ;;
    *) echo "$AGENTPLEX_BASE_URL_DEFAULT" ;;
  esac
}
default_version() {
  case "$AGENTPLEX_VERSION_DEFAULT" in
    @*@) echo "whatever the base URL holds" ;;
    *) echo "$AGENTPLEX_VERSION_DEFAULT" ;;
  esac
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

# Temp files: a temp dir, and a staged file inside the bin dir while it is being
# placed. Removed on every exit.
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

# legacy NEW OLD: prints $OLD and notes on stderr that it was read, when $NEW is unset
# and $OLD is set (the 0.2 names).
legacy() {
  eval "new_value=\${$1:-}"
  eval "old_value=\${$2:-}"
  if [ -z "$new_value" ] && [ -n "$old_value" ]; then
    printf 'install.sh: note: %s is deprecated, read as %s; set %s instead\n' "$2" "$1" "$1" >&2
    printf '%s\n' "$old_value"
  else
    printf '%s\n' "$new_value"
  fi
}

# Sets install_dir, base_url and version from the flags and the environment.
parse_settings() {
  install_dir="$(legacy AGENTPLEX_BIN_DIR SANDBOX_AGENT_INSTALL_DIR)"
  base_url="$(legacy AGENTPLEX_BASE_URL SANDBOX_AGENT_BASE_URL)"
  version="$(legacy AGENTPLEX_VERSION SANDBOX_AGENT_VERSION)"

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

  # A version or URL never looks like @NAME@; the unstamped placeholders do.
  if [ -z "$version" ]; then
    case "$AGENTPLEX_VERSION_DEFAULT" in
      @*@) ;;
      *) version="$AGENTPLEX_VERSION_DEFAULT" ;;
    esac
  fi
  version="${version#v}"
  if [ -z "$base_url" ]; then
    case "$AGENTPLEX_BASE_URL_DEFAULT" in
      @*@) die "no base URL: give the address of the folder holding the release files (agentplex-<target>.tar.gz, as scripts/release.sh writes them into dist/) with --base-url URL or AGENTPLEX_BASE_URL" ;;
      *) base_url="$AGENTPLEX_BASE_URL_DEFAULT" ;;
    esac
  fi
  case "$base_url" in
    *"{version}"*)
      [ -n "$version" ] || die "the base URL $base_url has {version} in it: give the version with --version V or AGENTPLEX_VERSION"
      base_url="$(printf '%s\n' "$base_url" | sed "s|{version}|$version|g")"
      ;;
  esac
  base_url="${base_url%/}"

  if [ -z "$install_dir" ]; then
    [ -n "${HOME:-}" ] || die "HOME is not set: give the bin dir with --dir DIR or AGENTPLEX_BIN_DIR"
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
    *) die "unsupported CPU architecture: ${arch:-unknown} (release archives are built for x86_64 and aarch64)" ;;
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
    *) die "unsupported operating system: ${os:-unknown} (release archives are built for Linux and macOS)" ;;
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
    die "curl or wget is needed to download agentplex and neither was found on PATH"
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

# Downloads this machine's archive into $tmp, checks its SHA-256 and unpacks it
# into $tmp/unpacked.
fetch_archive() {
  archive="${BINARY}-${target}.tar.gz"
  url="${base_url}/${archive}"
  say "installing agentplex${version:+ $version} for $target from $base_url"
  download "$url" "$tmp/$archive"
  download "$url.sha256" "$tmp/$archive.sha256"

  # The .sha256 file is `<hex>  <file name>` (sha256sum's format).
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

  mkdir "$tmp/unpacked"
  tar -xzf "$tmp/$archive" -C "$tmp/unpacked" 2>"$tmp/tar.err" ||
    die "could not unpack $archive: $(tail -n 1 "$tmp/tar.err" 2>/dev/null || true)"
  [ -f "$tmp/unpacked/$BINARY" ] || die "$archive holds no $BINARY binary"

  # The release asked for: the binary says its version (unless this temp dir cannot run it).
  if [ -n "$version" ]; then
    says="$("$tmp/unpacked/$BINARY" --version 2>/dev/null | head -n 1 || true)"
    case "$says" in
      "" | "$BINARY $version" | "$BINARY $version "*) ;;
      *) die "$archive at $base_url is ${says%% (*}, not $BINARY $version: give the base URL of release $version, or --version to match; nothing was installed" ;;
    esac
  fi
}

# commit NAME: renames $staged (a file in the bin dir) to NAME with one rename, so
# NAME holds the old file or the new one, never a partial file.
commit() {
  mv -f "$staged" "$install_dir/$1" || die "could not move $1 into $install_dir"
  staged=""
}

# True when FILE is a name this script may replace by the alias: a link to agentplex,
# or a binary of ours (0.1.x and 0.2 were called sandbox-agent, and their --version
# names the target triple). Another program by that name is kept.
replaceable_alias() {
  [ -e "$1" ] || [ -L "$1" ] || return 0
  if [ -L "$1" ] && [ "$(readlink "$1" 2>/dev/null || true)" = "$BINARY" ]; then return 0; fi
  [ -f "$1" ] && [ ! -L "$1" ] || return 1
  case "$("$1" --version 2>/dev/null | head -n 1 || true)" in
    "$BINARY "* | "$ALIAS "*"-linux-"*")" | "$ALIAS "*"-darwin"*")") return 0 ;;
  esac
  return 1
}

# Notes when NAME on PATH is not the one just installed.
note_shadowed() {
  found="$(command -v "$1" 2>/dev/null || true)"
  if [ -n "$found" ] && [ "$found" != "$install_dir/$1" ]; then
    say "note: $found comes first on PATH and shadows the $1 just installed"
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
  tmp="$(mktemp -d "${TMPDIR:-/tmp}/agentplex-install.XXXXXX")" || die "could not create a temp dir"

  fetch_archive

  mkdir -p "$install_dir" 2>/dev/null || die "could not create the bin dir $install_dir"
  staged="$install_dir/.$BINARY.tmp.$$"
  cp "$tmp/unpacked/$BINARY" "$staged" 2>/dev/null || die "could not write to $install_dir (choose another dir with --dir DIR)"
  chmod 755 "$staged" || die "could not make $staged executable"
  commit "$BINARY"
  dest="$install_dir/$BINARY"

  # The second name: a relative link next to the binary.
  alias_note=""
  if replaceable_alias "$install_dir/$ALIAS"; then
    staged="$install_dir/.$ALIAS.tmp.$$"
    ln -s "$BINARY" "$staged" || die "could not create the link $install_dir/$ALIAS"
    commit "$ALIAS"
    alias_note=" (and $install_dir/$ALIAS, a link to it)"
  else
    say "note: kept $install_dir/$ALIAS, which is not agentplex; run agentplex by its own name"
  fi

  installed="$("$dest" --version 2>/dev/null | head -n 1 || true)"
  [ -n "$installed" ] || installed="agentplex${version:+ $version}"
  say "installed $installed at $dest$alias_note"
  case ":${PATH:-}:" in
    *":$install_dir:"*)
      note_shadowed "$BINARY"
      [ -z "$alias_note" ] || note_shadowed "$ALIAS"
      ;;
    *)
      say "note: $install_dir is not on PATH; add it with: export PATH=\"$install_dir:\$PATH\""
      ;;
  esac
}

main "$@"
