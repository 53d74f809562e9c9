#!/usr/bin/env bash
# Builds the release artifacts of agentplex into dist/, a folder to publish or mirror
# anywhere (install.sh downloads from it):
#
#   dist/agentplex-<target>.tar.gz         agentplex, sandbox-agent (a link to it), LICENSE, README.md
#   dist/agentplex-<target>.tar.gz.sha256  `<hex>  <archive>` (sha256sum's format)
#   dist/SHA256SUMS                        every archive, install.sh and npm tarball
#   dist/install.sh                        scripts/install.sh with the version (and --base-url) stamped in
#   dist/npm/*.tgz                         agentplex-cli and one agentplex-cli-<os>-<cpu> per target
#
# usage: scripts/release.sh [--target TRIPLE]... [--binary TRIPLE=PATH]... [--out DIR] [--base-url URL]
#        scripts/release.sh --install-tools TRIPLE...
#
#   --target TRIPLE       build for TRIPLE (repeatable). Default: x86_64-unknown-linux-musl and
#                         aarch64-unknown-linux-musl, unless --binary names the targets.
#   --binary TRIPLE=PATH  package PATH as TRIPLE's binary instead of building it (repeatable).
#   --out DIR             write into DIR instead of dist/.
#   --base-url URL        where dist/ will be published: stamped into install.sh as its default
#                         base URL ({version} in it stands for the version). Without it,
#                         install.sh needs --base-url or AGENTPLEX_BASE_URL.
#   --install-tools       only install what building the given targets needs (below), then exit.
#
# Building uses `cargo zigbuild` (Zig as the C cross compiler for SQLite and the musl
# link) with the `dist` profile; the tools are set up when missing: the rustup targets
# (TRIPLE and wasm32-wasip2 for the builtin adapters, scripts/setup.sh), cargo-zigbuild
# and Zig from PyPI in a venv under target/ (cargo install cargo-zigbuild where pip has
# no wheel for this machine). macOS targets are skipped with a note when they cannot
# be built here. The version is [workspace.package] version in Cargo.toml.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
PROG="release.sh"
DEFAULT_TARGETS=(x86_64-unknown-linux-musl aarch64-unknown-linux-musl)
BINARY=agentplex
ALIAS=sandbox-agent # the second name, for scripts written for 0.1.x
NPM_CLI=agentplex-cli
MAX_BYTES=43000000         # the size budget of one binary: 43 MB since adapters at opt-level s and native policy rules (docs/performance.md)
MAX_ARCHIVE_BYTES=20750000 # and of what a sandbox downloads, its archive: 20.75 MB since ACP agents' offers and configuration options

die() {
  printf '%s: %s\n' "$PROG" "$*" >&2
  exit 1
}
note() {
  printf '%s: %s\n' "$PROG" "$*" >&2
}
# A command that fails without its own `|| die` still ends with one line saying where.
set -E
trap '[ "$BASH_SUBSHELL" -gt 0 ] || printf "%s: failed at line %s: %s\n" "$PROG" "$LINENO" "$BASH_COMMAND" >&2' ERR

usage() {
  sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'
}

absolute() {
  case "$1" in
    /*) printf '%s\n' "$1" ;;
    *) printf '%s\n' "$PWD/$1" ;;
  esac
}

# ---- arguments ---------------------------------------------------------------

targets=()
binary_triples=()
binary_paths=()
out="$root/dist"
install_only=""
base_url=""
while [ "$#" -gt 0 ]; do
  case "$1" in
    --install-tools)
      install_only=1
      shift
      while [ "$#" -gt 0 ] && [[ "$1" != -* ]]; do
        targets+=("$1")
        shift
      done
      ;;
    --target)
      [ "$#" -ge 2 ] || die "--target needs a target triple"
      targets+=("$2")
      shift 2
      ;;
    --binary)
      [ "$#" -ge 2 ] || die "--binary needs TRIPLE=PATH"
      case "$2" in
        ?*=?*) ;;
        *) die "--binary needs TRIPLE=PATH, got '$2'" ;;
      esac
      binary_triples+=("${2%%=*}")
      binary_paths+=("$(absolute "${2#*=}")")
      shift 2
      ;;
    --base-url)
      [ "$#" -ge 2 ] || die "--base-url needs a URL"
      case "$2" in
        *[[:space:]\"\$\`\\]*) die "--base-url: '$2' has a character a URL does not need (space, quote, \$, backquote, backslash)" ;;
        http://* | https://*) base_url="${2%/}" ;;
        *) die "--base-url needs an http:// or https:// URL, got '$2'" ;;
      esac
      shift 2
      ;;
    --out)
      [ "$#" -ge 2 ] || die "--out needs a directory"
      out="$(absolute "$2")"
      shift 2
      ;;
    -h | --help)
      usage
      exit 0
      ;;
    *) die "unknown argument: $1 (see --help)" ;;
  esac
done

# Targets: the ones asked for, plus the ones given a binary; the defaults when neither.
for t in ${binary_triples[@]+"${binary_triples[@]}"}; do
  case " ${targets[*]-} " in
    *" $t "*) ;;
    *) targets+=("$t") ;;
  esac
done
if [ "${#targets[@]}" -eq 0 ]; then
  targets=("${DEFAULT_TARGETS[@]}")
fi

# npm's name for a target's platform (process.platform-process.arch).
npm_platform() {
  case "$1" in
    x86_64-unknown-linux-musl) echo linux-x64 ;;
    aarch64-unknown-linux-musl) echo linux-arm64 ;;
    x86_64-apple-darwin) echo darwin-x64 ;;
    aarch64-apple-darwin) echo darwin-arm64 ;;
    *) return 1 ;;
  esac
}
for t in "${targets[@]}"; do
  npm_platform "$t" >/dev/null ||
    die "unsupported target $t (supported: x86_64-unknown-linux-musl, aarch64-unknown-linux-musl, x86_64-apple-darwin, aarch64-apple-darwin)"
done

# The --binary given for a triple, if any.
given_binary() {
  local i
  for i in "${!binary_triples[@]}"; do
    if [ "${binary_triples[$i]}" = "$1" ]; then
      printf '%s\n' "${binary_paths[$i]}"
      return 0
    fi
  done
  return 1
}

# ---- version and tools ---------------------------------------------------------

version="$(awk '
  /^[ \t]*\[/ { section = $0; gsub(/[ \t]/, "", section); next }
  section == "[workspace.package]" && /^[ \t]*version[ \t]*=/ {
    sub(/^[^=]*=[ \t]*"/, ""); sub(/".*/, ""); print; exit
  }' "$root/Cargo.toml")"
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.+-]+)?$ ]] ||
  die "could not read [workspace.package] version from Cargo.toml (got '$version')"

command -v npm >/dev/null 2>&1 || die "npm is needed to pack the npm packages and was not found on PATH"
command -v node >/dev/null 2>&1 || die "node is needed to write the npm package.json files and was not found on PATH"
for f in LICENSE README.md scripts/install.sh npm/cli/package.json npm/cli/bin/agentplex.js npm/cli/README.md npm/platform/README.md; do
  [ -f "$root/$f" ] || die "$f is missing from the repository"
done

if command -v sha256sum >/dev/null 2>&1; then
  sha256() { sha256sum "$@"; }
elif command -v shasum >/dev/null 2>&1; then
  sha256() { shasum -a 256 "$@"; }
else
  die "sha256sum or shasum is needed and neither was found on PATH"
fi

# Archive timestamps: SOURCE_DATE_EPOCH, else the last commit's time (reproducible archives).
epoch="${SOURCE_DATE_EPOCH:-$(git -C "$root" log -1 --format=%ct 2>/dev/null || date +%s)}"

work="$(mktemp -d "${TMPDIR:-/tmp}/agentplex-release.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# ---- building -------------------------------------------------------------------

# The Python tools (cargo-zigbuild, Zig) go into a venv under target/, never into the
# system Python (current Debian and Ubuntu refuse that: an externally managed environment).
TOOLS_VENV="$root/target/release-tools-venv"

# Puts the venv's tools first on PATH when the venv exists (its python3 has ziglang,
# which cargo-zigbuild runs as `python3 -m ziglang` when no zig is on PATH).
use_tools_venv() {
  if [ -x "$TOOLS_VENV/bin/python3" ]; then
    case ":$PATH:" in
      *":$TOOLS_VENV/bin:"*) ;;
      *) PATH="$TOOLS_VENV/bin:$PATH" ;;
    esac
  fi
}

# pip-installs PACKAGE... into the venv, creating it first. Returns 1 on failure.
venv_install() {
  if [ ! -x "$TOOLS_VENV/bin/python3" ]; then
    command -v python3 >/dev/null 2>&1 || { note "python3 was not found on PATH"; return 1; }
    note "creating a Python venv for the build tools in ${TOOLS_VENV#"$root"/}"
    python3 -m venv "$TOOLS_VENV" >&2 ||
      { note "python3 -m venv failed (on Debian and Ubuntu: apt-get install python3-venv)"; return 1; }
  fi
  use_tools_venv
  "$TOOLS_VENV/bin/python3" -m pip install --quiet --disable-pip-version-check "$@" >&2
}

# Installs what `cargo zigbuild --target TRIPLE` needs, when missing.
ensure_build_tools() {
  local triple="$1"
  command -v cargo >/dev/null 2>&1 || die "cargo is needed to build $triple (or give a binary with --binary $triple=PATH)"
  if command -v rustup >/dev/null 2>&1; then
    rustup target add "$triple" >/dev/null 2>&1 || die "rustup target add $triple failed"
    # The builtin adapters are built for wasm32-wasip2 by the daemon's build script.
    "$root/scripts/setup.sh" >&2 || die "scripts/setup.sh (rustup target add wasm32-wasip2) failed"
  fi
  if [ "$(uname -s)" = Darwin ] && [[ "$triple" == *-apple-darwin ]]; then
    return 0 # a native macOS build needs no Zig
  fi
  use_tools_venv
  if ! cargo zigbuild --help >/dev/null 2>&1; then
    # A prebuilt wheel installs in seconds; compiling it takes minutes.
    note "installing cargo-zigbuild (pip, into ${TOOLS_VENV#"$root"/})"
    venv_install cargo-zigbuild || true
  fi
  if ! cargo zigbuild --help >/dev/null 2>&1; then
    note "installing cargo-zigbuild (cargo install --locked cargo-zigbuild)"
    cargo install --locked cargo-zigbuild || die "could not install cargo-zigbuild"
  fi
  if ! command -v zig >/dev/null 2>&1 && ! python3 -m ziglang version >/dev/null 2>&1; then
    note "installing Zig (pip install ziglang, into ${TOOLS_VENV#"$root"/})"
    venv_install ziglang ||
      die "could not install Zig into ${TOOLS_VENV#"$root"/}: install zig (https://ziglang.org) on PATH instead"
  fi
}

# Builds TRIPLE's binary with the dist profile; prints its path. Returns 1 if the build failed.
build() {
  local triple="$1" target_dir
  target_dir="${CARGO_TARGET_DIR:-$root/target}"
  case "$target_dir" in /*) ;; *) target_dir="$root/$target_dir" ;; esac
  note "building $BINARY $version for $triple"
  if [ "$(uname -s)" = Darwin ] && [[ "$triple" == *-apple-darwin ]]; then
    (cd "$root" && cargo build --locked --profile dist --target "$triple" -p agentplex --bin "$BINARY") >&2 || return 1
  else
    # The build script precompiles the builtin adapters for TRIPLE; for another
    # architecture than this machine's it needs Cranelift's other backends. Given
    # AGENTPLEX_PRECOMPILED_BUILTINS (a folder written by agentplex-precompile, as
    # scripts/test.sh does after its debug build), it takes them from there instead
    # and the build compiles no host for the build script.
    local features=()
    if [ -n "${AGENTPLEX_PRECOMPILED_BUILTINS:-}" ]; then
      features=(--no-default-features)
    elif [[ "$triple" != "$(uname -m)"-* ]]; then
      features=(--features cross-precompile)
    fi
    (cd "$root" && cargo zigbuild --locked --profile dist --target "$triple" -p agentplex --bin "$BINARY" "${features[@]}") >&2 || return 1
  fi
  printf '%s\n' "$target_dir/$triple/dist/$BINARY"
}

# ---- checking a binary ------------------------------------------------------------

# Fails unless BIN is an executable for TRIPLE, and (Linux) statically linked.
check_binary() {
  local triple="$1" bin="$2" desc arch_re size first
  [ -f "$bin" ] || die "$bin ($triple) does not exist"
  size=$(($(wc -c <"$bin")))
  [ "$size" -le "$MAX_BYTES" ] || die "$bin is $size bytes, over the 43 MB budget (docs/performance.md says what it holds)"

  case "$triple" in
    x86_64-*-linux-*) arch_re='ELF 64-bit.*x86-64' ;;
    aarch64-*-linux-*) arch_re='ELF 64-bit.*(ARM aarch64|aarch64)' ;;
    x86_64-apple-darwin) arch_re='Mach-O 64-bit.*x86_64' ;;
    aarch64-apple-darwin) arch_re='Mach-O 64-bit.*arm64' ;;
  esac
  if command -v file >/dev/null 2>&1; then
    desc="$(file -bL "$bin")"
    [[ "$desc" =~ $arch_re ]] || die "$bin is not a $triple executable: $desc"
    # A dynamically linked executable names its loader ("interpreter /lib/ld-...").
    if [[ "$triple" == *-linux-* && "$desc" == *interpreter* ]]; then
      die "$bin is not statically linked: $desc"
    fi
  elif [[ "$triple" == *-linux-* ]] && command -v ldd >/dev/null 2>&1 && [ "$(uname -s)" = Linux ]; then
    case "$(ldd "$bin" 2>&1 || true)" in
      *"not a dynamic executable"* | *"statically linked"*) ;;
      *) die "$bin is not statically linked (ldd lists libraries)" ;;
    esac
  else
    note "warning: 'file' is not installed: not checking that $bin is a static $triple executable"
  fi

  # When this machine can run it, the binary must say this version.
  if [ "$(host_triple)" = "$triple" ]; then
    first="$("$bin" --version 2>/dev/null | head -n 1 || true)"
    [[ "$first" == "$BINARY $version"* ]] ||
      die "$bin --version prints '$first', expected it to start with '$BINARY $version' (Cargo.toml's version)"
  fi
}

host_triple() {
  case "$(uname -s)-$(uname -m)" in
    Linux-x86_64) echo x86_64-unknown-linux-musl ;;
    Linux-aarch64 | Linux-arm64) echo aarch64-unknown-linux-musl ;;
    Darwin-x86_64) echo x86_64-apple-darwin ;;
    Darwin-arm64) echo aarch64-apple-darwin ;;
    *) echo unknown ;;
  esac
}

# ---- packaging --------------------------------------------------------------------

# Writes dist/agentplex-TRIPLE.tar.gz (+ .sha256) from BIN: the binary, the second
# name as a relative symbolic link to it, LICENSE and README.md.
write_archive() {
  local triple="$1" bin="$2" stage name
  stage="$work/archive-$triple"
  name="$BINARY-$triple.tar.gz"
  mkdir -p "$stage"
  cp "$bin" "$stage/$BINARY"
  chmod 755 "$stage/$BINARY"
  ln -s "$BINARY" "$stage/$ALIAS"
  cp "$root/LICENSE" "$root/README.md" "$stage/"
  chmod 644 "$stage/LICENSE" "$stage/README.md"
  local entries=("$BINARY" "$ALIAS" LICENSE README.md)
  if tar --version 2>/dev/null | grep -q 'GNU tar'; then
    tar --owner=0 --group=0 --numeric-owner --mtime="@$epoch" \
      -C "$stage" -cf - "${entries[@]}" | gzip -9n >"$out/$name"
  else
    tar -C "$stage" -cf - "${entries[@]}" | gzip -9n >"$out/$name"
  fi
  local size
  size=$(($(wc -c <"$out/$name")))
  [ "$size" -le "$MAX_ARCHIVE_BYTES" ] || die "$out/$name is $size bytes, over the 20.75 MB budget of a download"
  (cd "$out" && sha256 "$name" >"$name.sha256")
}

# Stages and packs the platform package of TRIPLE with BIN.
pack_platform_package() {
  local triple="$1" bin="$2" platform pkg dir
  platform="$(npm_platform "$triple")"
  pkg="$NPM_CLI-$platform"
  dir="$work/npm/$pkg"
  mkdir -p "$dir/bin"
  cp "$bin" "$dir/bin/$BINARY"
  chmod 755 "$dir/bin/$BINARY"
  cp "$root/LICENSE" "$dir/"
  # package.json (os and cpu select it on install) and the README from npm/platform/.
  # shellcheck disable=SC2016 # JavaScript, not shell
  (cd "$dir" && node -e '
    const fs = require("fs");
    const [pkg, version, platform, triple, binary, readmeTemplate] = process.argv.slice(1);
    const [os, cpu] = platform.split("-");
    const name = `${os === "linux" ? "Linux" : "macOS"} ${cpu}` + (os === "linux" ? " (static, musl)" : "");
    const manifest = {
      name: pkg,
      version,
      description: `The agentplex binary for ${name}; installed by agentplex-cli`,
      license: "Apache-2.0",
      repository: { type: "git", url: "git+https://github.com/agentplex/agentplex.git" },
      os: [os],
      cpu: [cpu],
      files: [`bin/${binary}`, "README.md", "LICENSE"],
      preferUnplugged: true,
    };
    fs.writeFileSync("package.json", JSON.stringify(manifest, null, 2) + "\n");
    const readme = fs.readFileSync(readmeTemplate, "utf8")
      .replaceAll("@PACKAGE@", pkg).replaceAll("@VERSION@", version)
      .replaceAll("@PLATFORM_NAME@", name).replaceAll("@TARGET@", triple);
    fs.writeFileSync("README.md", readme);
  ' "$pkg" "$version" "$platform" "$triple" "$BINARY" "$root/npm/platform/README.md") ||
    die "could not write the package.json of $pkg"
  npm_pack "$dir" "$pkg"
}

# Stages and packs agentplex-cli: the shim, its optionalDependencies pinned to this
# version, listing the platform packages PKG... built in this release.
pack_cli_package() {
  local dir="$work/npm/$NPM_CLI"
  mkdir -p "$dir/bin"
  cp "$root/npm/cli/package.json" "$root/npm/cli/README.md" "$root/LICENSE" "$dir/"
  cp "$root/npm/cli/bin/$BINARY.js" "$dir/bin/"
  chmod 755 "$dir/bin/$BINARY.js"
  # shellcheck disable=SC2016 # JavaScript, not shell
  (cd "$dir" && node -e '
    const fs = require("fs");
    const [version, ...platformPackages] = process.argv.slice(1);
    const manifest = JSON.parse(fs.readFileSync("package.json", "utf8"));
    manifest.version = version;
    const known = Object.keys(manifest.optionalDependencies || {});
    for (const pkg of platformPackages) {
      if (!known.includes(pkg)) throw new Error(`${pkg} is not in npm/cli/package.json`);
    }
    manifest.optionalDependencies = Object.fromEntries(
      known.filter((pkg) => platformPackages.includes(pkg)).map((pkg) => [pkg, version]));
    fs.writeFileSync("package.json", JSON.stringify(manifest, null, 2) + "\n");
  ' "$version" "$@") || die "could not write the package.json of $NPM_CLI"
  npm_pack "$dir" "$NPM_CLI"
}

# Writes dist/install.sh: scripts/install.sh with this version, and the --base-url
# when one was given, as its defaults.
stamp_install_script() {
  local line stamped=0
  while IFS= read -r line || [ -n "$line" ]; do
    case "$line" in
      'AGENTPLEX_VERSION_DEFAULT="@VERSION@"')
        line="AGENTPLEX_VERSION_DEFAULT=\"$version\""
        stamped=$((stamped + 1))
        ;;
      'AGENTPLEX_BASE_URL_DEFAULT="@BASE_URL@"')
        [ -z "$base_url" ] || line="AGENTPLEX_BASE_URL_DEFAULT=\"$base_url\""
        stamped=$((stamped + 1))
        ;;
    esac
    printf '%s\n' "$line"
  done <"$root/scripts/install.sh" >"$out/install.sh"
  [ "$stamped" = 2 ] ||
    die "could not stamp install.sh: scripts/install.sh lacks an AGENTPLEX_VERSION_DEFAULT=\"@VERSION@\" or AGENTPLEX_BASE_URL_DEFAULT=\"@BASE_URL@\" line"
  chmod 755 "$out/install.sh"
}

# npm pack DIR into dist/npm/, checking the tarball is there.
npm_pack() {
  local dir="$1" pkg="$2"
  (cd "$dir" && npm pack --silent --ignore-scripts --pack-destination "$out/npm" >/dev/null) ||
    die "npm pack failed for $pkg"
  [ -f "$out/npm/$pkg-$version.tgz" ] || die "npm pack did not write $pkg-$version.tgz"
}

human_size() {
  awk -v b="$1" 'BEGIN {
    if (b >= 1048576) printf "%.1f MiB", b / 1048576;
    else if (b >= 1024) printf "%.1f KiB", b / 1024;
    else printf "%d B", b }'
}

# ---- the release ------------------------------------------------------------------
if [ -n "$install_only" ]; then
  for triple in "${targets[@]}"; do
    ensure_build_tools "$triple"
  done
  exit 0
fi

# Binaries first: nothing in dist/ changes when a build fails.
built_triples=()
built_paths=()
skipped=()
for triple in "${targets[@]}"; do
  if bin="$(given_binary "$triple")"; then
    note "packaging $bin as $triple"
  else
    ensure_build_tools "$triple"
    if ! bin="$(build "$triple")"; then
      if [[ "$triple" == *-apple-darwin ]]; then
        note "note: skipping $triple: it could not be built on this machine (a macOS target needs the macOS SDK)"
        skipped+=("$triple")
        continue
      fi
      die "the build for $triple failed (see the cargo output above)"
    fi
  fi
  check_binary "$triple" "$bin"
  built_triples+=("$triple")
  built_paths+=("$bin")
done
[ "${#built_triples[@]}" -gt 0 ] || die "no target was built"

# Remove what an earlier run wrote, then write the artifacts.
mkdir -p "$out" || die "could not create $out"
# (sandbox-agent-*: the archives' name before 0.3.)
rm -f "$out"/{"$BINARY","$ALIAS"}-*.tar.gz{,.sha256} "$out/SHA256SUMS" "$out/install.sh"
rm -rf "$out/npm"
mkdir -p "$out/npm"

platform_packages=()
for i in "${!built_triples[@]}"; do
  write_archive "${built_triples[$i]}" "${built_paths[$i]}"
  pack_platform_package "${built_triples[$i]}" "${built_paths[$i]}"
  platform_packages+=("$NPM_CLI-$(npm_platform "${built_triples[$i]}")")
done
pack_cli_package "${platform_packages[@]}"

stamp_install_script
(cd "$out" && sha256 "$BINARY"-*.tar.gz install.sh npm/*.tgz >SHA256SUMS)

# Summary.
printf '\nagentplex %s: %s\n\n' "$version" "${built_triples[*]}"
printf '%-58s %12s\n' file size
files=()
for triple in "${built_triples[@]}"; do
  files+=("$BINARY-$triple.tar.gz" "$BINARY-$triple.tar.gz.sha256")
done
files+=(SHA256SUMS install.sh)
for f in "$out"/npm/*.tgz; do files+=("npm/${f##*/}"); done
for f in "${files[@]}"; do
  printf '%-58s %12s\n' "$f" "$(human_size "$(($(wc -c <"$out/$f")))")"
done
for i in "${!built_triples[@]}"; do
  printf '%-58s %12s\n' "(binary ${built_triples[$i]})" "$(human_size "$(($(wc -c <"${built_paths[$i]}")))")"
done
if [ "${#skipped[@]}" -gt 0 ]; then
  printf '\nskipped (could not be built here): %s\n' "${skipped[*]}"
fi
printf '\nin %s; test with: testing/release/test.sh %s\n' "$out" "$out"
