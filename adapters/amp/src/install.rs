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
            checksum_url: None,
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

#[cfg(test)]
mod tests {
    use super::*;

    fn platform(os: Os, arch: Arch, libc: Option<Libc>) -> Platform {
        Platform { os, arch, libc }
    }

    /// Seed 003's table: no musl build.
    #[test]
    fn every_platform_maps_to_its_bucket_file() {
        let cases = [
            (
                platform(Os::Linux, Arch::X8664, Some(Libc::Gnu)),
                "linux-x64",
                "amp",
            ),
            (
                platform(Os::Linux, Arch::Aarch64, Some(Libc::Gnu)),
                "linux-arm64",
                "amp",
            ),
            (
                platform(Os::Macos, Arch::Aarch64, None),
                "darwin-arm64",
                "amp",
            ),
            (platform(Os::Macos, Arch::X8664, None), "darwin-x64", "amp"),
            (
                platform(Os::Windows, Arch::X8664, None),
                "win32-x64",
                "amp.exe",
            ),
        ];
        for (target, name, binary) in cases {
            let recipe = recipe(&target).unwrap();
            assert_eq!(recipe.binary_name, binary);
            assert_eq!(
                recipe.latest_version_url.as_deref(),
                Some(format!("{BUCKET}/cli-version.txt").as_str())
            );
            assert_eq!(
                recipe.sources[0].url,
                format!("{BUCKET}/{{version}}/amp-{name}")
            );
            assert!(matches!(recipe.sources[0].archive, ArchiveKind::None));
            assert_eq!(recipe.npm_package, Some(format!("@ampcode/cli-{name}")));
        }
        for arch in [Arch::X8664, Arch::Aarch64] {
            assert!(recipe(&platform(Os::Linux, arch, Some(Libc::Musl))).is_none());
        }
    }

    #[test]
    fn the_version_file_holds_the_version() {
        assert_eq!(
            parse_version("0.0.1790142911-g7618fb\n").as_deref(),
            Some("0.0.1790142911-g7618fb")
        );
        assert_eq!(parse_version("<html>"), None);
    }
}
