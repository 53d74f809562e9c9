//! Where the `amp` binary comes from, and how to read its version.
//!
//! Amp publishes one native binary per platform in its release bucket
//! (`<bucket>/<version>/amp-<platform>`, the latest version named by
//! `<bucket>/cli-version.txt`) and as npm packages `@ampcode/cli-<platform>` that hold
//! the binary at the package root (`@ampcode/cli`, and `@sourcegraph/amp` which now
//! only depends on it, list them as optional dependencies and need a postinstall step).
//! Amp builds no musl binary. The bucket publishes no checksum (Amp's own
//! packaging computes digests from downloads), so a release download is not
//! verified; the npm package is (npm checks the registry's integrity hash).

use sandbox_agent_adapter_kit::prelude::*;

/// The release bucket.
const BUCKET: &str = "https://storage.googleapis.com/amp-public-assets-prod-0/cli";

/// The recipe for `target`: the release download, then the npm package; `None` on
/// musl Linux, for which Amp ships nothing.
pub(crate) fn recipe(target: &Platform, _version: Option<&str>) -> Option<InstallRecipe> {
    if target.is_musl() {
        return None;
    }
    // Amp's platform suffix is Node's: `linux-x64`, `darwin-arm64`, `win32-x64`...
    let platform = target.node_name();
    let binary = target.executable("amp");
    let release = format!("{BUCKET}/{{version}}/amp-{platform}");
    let package = format!("@ampcode/cli-{platform}");
    Some(
        InstallRecipe::npm(&binary, &package, &binary)
            .with_latest_version_url(format!("{BUCKET}/cli-version.txt"))
            .with_downloads([InstallSource::download(release, ArchiveKind::None, &binary)]),
    )
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

/// The bucket's `cli-version.txt` holds the version itself.
pub(crate) use parse_version as parse_latest_version;

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
