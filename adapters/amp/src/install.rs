//! Where the `amp` binary comes from, and how to read its version.
//!
//! Amp publishes one native binary per platform in its release bucket
//! (`<bucket>/<version>/amp-<platform>`, the latest version named by
//! `<bucket>/cli-version.txt`) and as npm packages `@ampcode/cli-<platform>` that hold
//! the binary at the package root (`@ampcode/cli`, and `@sourcegraph/amp` which now
//! only depends on it, list them as optional dependencies and need a postinstall step).
//! Amp builds no musl binary.

use sandbox_agent_adapter_kit::prelude::*;

/// The release bucket.
const BUCKET: &str = "https://storage.googleapis.com/amp-public-assets-prod-0/cli";

/// The recipe for `target`: the release download, then the npm package; `None` on
/// musl Linux, for which Amp ships nothing.
pub(crate) fn recipe(target: &Platform) -> Option<InstallRecipe> {
    if target.os == Os::Linux && target.libc == Some(Libc::Musl) {
        return None;
    }
    let platform = platform_name(target);
    let binary = match target.os {
        Os::Windows => "amp.exe",
        Os::Linux | Os::Macos => "amp",
    };
    Some(InstallRecipe {
        binary_name: binary.to_owned(),
        latest_version_url: Some(format!("{BUCKET}/cli-version.txt")),
        sources: vec![InstallSource {
            url: format!("{BUCKET}/{{version}}/amp-{platform}"),
            archive: ArchiveKind::None,
            binary_path: binary.to_owned(),
            sha256_url: None,
        }],
        npm_package: Some(format!("@ampcode/cli-{platform}")),
        npm_binary_path: Some(binary.to_owned()),
    })
}

/// Amp's platform suffix: `linux-x64`, `linux-arm64`, `darwin-arm64`, `win32-x64`...
fn platform_name(target: &Platform) -> String {
    let arch = match target.arch {
        Arch::X8664 => "x64",
        Arch::Aarch64 => "arm64",
    };
    let os = match target.os {
        Os::Linux => "linux",
        Os::Macos => "darwin",
        Os::Windows => "win32",
    };
    format!("{os}-{arch}")
}

/// The first word of `text` shaped like `MAJOR.MINOR.PATCH` with an optional
/// `-suffix`, as `amp --version` prints it
/// (`0.0.1790142911-g7618fb (released 2026-09-23T05:55:11.000Z, 2mo ago)`) and as
/// the bucket's `cli-version.txt` holds it.
pub(crate) fn parse_version(text: &str) -> Option<String> {
    text.split_whitespace()
        .find(|word| is_version(word))
        .map(str::to_owned)
}

/// True for `1.2.3` and `0.0.1790142911-g7618fb`.
fn is_version(word: &str) -> bool {
    let (core, suffix) = word.split_once('-').unwrap_or((word, ""));
    let numbers: Vec<&str> = core.split('.').collect();
    numbers.len() == 3
        && numbers
            .iter()
            .all(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
        && suffix
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '.')
}
