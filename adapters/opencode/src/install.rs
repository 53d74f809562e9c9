//! Where the `opencode` binary comes from, and how to read its version.
//!
//! OpenCode publishes one archive per platform on GitHub releases (tag `v<version>`,
//! `opencode-<platform>.tar.gz` on Linux, `.zip` on macOS and Windows, the binary at
//! the archive's root) and the same binaries on npm as `opencode-<platform>` (the
//! binary at `bin/opencode`), which the `opencode-ai` wrapper package lists as optional
//! dependencies. `<platform>` is `linux-x64`, `linux-arm64-musl`, `darwin-arm64`,
//! `windows-x64`...

use sandbox_agent_adapter_kit::prelude::*;

/// The version the adapter was written and tested against; installed when the caller
/// names none.
const TESTED_VERSION: &str = "1.18.33";

/// GitHub's API document of the latest release (`tag_name` is `v<version>`).
const LATEST_URL: &str = "https://api.github.com/repos/anomalyco/opencode/releases/latest";

/// The recipe for `target`: the GitHub release archive, then the npm platform package.
pub fn recipe(target: &Platform, version: Option<&str>) -> InstallRecipe {
    let platform = platform(target);
    let (binary, archive, extension) = match target.os {
        Os::Linux => ("opencode", ArchiveKind::TarGz, "tar.gz"),
        Os::Macos => ("opencode", ArchiveKind::Zip, "zip"),
        Os::Windows => ("opencode.exe", ArchiveKind::Zip, "zip"),
    };
    let version = version.unwrap_or(TESTED_VERSION);
    InstallRecipe {
        binary_name: binary.to_owned(),
        latest_version_url: Some(LATEST_URL.to_owned()),
        sources: vec![InstallSource {
            url: format!(
                "https://github.com/anomalyco/opencode/releases/download/v{{version}}/opencode-{platform}.{extension}"
            ),
            archive,
            binary_path: binary.to_owned(),
            sha256_url: None,
        }],
        npm_package: Some(format!("opencode-{platform}@{version}")),
        npm_binary_path: Some(format!("bin/{binary}")),
    }
}

/// OpenCode's platform name: `linux-x64`, `linux-x64-musl`, `darwin-arm64`,
/// `windows-x64`...
fn platform(target: &Platform) -> String {
    let os = match target.os {
        Os::Linux => "linux",
        Os::Macos => "darwin",
        Os::Windows => "windows",
    };
    let arch = match target.arch {
        Arch::X8664 => "x64",
        Arch::Aarch64 => "arm64",
    };
    match target.libc {
        Some(Libc::Musl) if target.os == Os::Linux => format!("{os}-{arch}-musl"),
        _ => format!("{os}-{arch}"),
    }
}

/// The version in the latest-release document: its `tag_name` without the `v`.
pub fn parse_latest_version(body: &str) -> Option<String> {
    let document: serde_json::Value = serde_json::from_str(body).ok()?;
    let tag = document.get("tag_name")?.as_str()?;
    let version = tag.strip_prefix('v').unwrap_or(tag);
    is_version(version).then(|| version.to_owned())
}

/// The version in `opencode --version` output (the bare version, `1.18.33`).
pub fn parse_version(output: &str) -> Option<String> {
    output
        .split_whitespace()
        .map(|word| word.strip_prefix('v').unwrap_or(word))
        .find(|word| is_version(word))
        .map(str::to_owned)
}

/// True for dotted numbers with an optional pre-release suffix: `1.18.33`, `1.19.0-beta.1`.
fn is_version(word: &str) -> bool {
    let core = word.split('-').next().unwrap_or_default();
    let mut parts = core.split('.');
    parts.clone().count() >= 2
        && parts.all(|part| !part.is_empty() && part.chars().all(|c| c.is_ascii_digit()))
}
