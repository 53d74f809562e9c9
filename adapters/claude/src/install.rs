//! Where the `claude` binary comes from, and how to read its version.
//!
//! Anthropic publishes one native binary per platform, both in its release bucket
//! (`<bucket>/<version>/<platform>/claude`, the latest version named by
//! `<bucket>/latest`) and as npm packages `@anthropic-ai/claude-code-<platform>`
//! holding the binary at the package root (the `@anthropic-ai/claude-code` wrapper
//! lists them as optional dependencies). Each release has a `manifest.json` with the
//! SHA-256 of every platform's binary (`platforms.<platform>.checksum`), which the
//! recipe names through a JSON-pointer fragment.

use sandbox_agent_adapter_kit::prelude::*;

/// The release bucket.
const BUCKET: &str = "https://storage.googleapis.com/claude-code-dist-86c565f3-f756-42ad-8dfa-d59b1c096819/claude-code-releases";

/// The recipe for `target`: the release download, then the npm package (their URLs
/// name any version, so `_version` is not needed).
pub(crate) fn recipe(target: &Platform, _version: Option<&str>) -> Option<InstallRecipe> {
    let platform = platform_name(target);
    let binary = target.executable("claude");
    let release = format!("{BUCKET}/{{version}}/{platform}/{binary}");
    let checksum = format!("{BUCKET}/{{version}}/manifest.json#/platforms/{platform}/checksum");
    let package = format!("@anthropic-ai/claude-code-{platform}");
    let download = InstallSource::download(release, ArchiveKind::None, &binary);
    Some(
        InstallRecipe::npm(&binary, &package, &binary)
            .with_latest_version_url(format!("{BUCKET}/latest"))
            .with_downloads([download.with_checksum_url(checksum)]),
    )
}

/// The digest a checksum URL of [`recipe`] points at: the string at the JSON
/// pointer of its fragment in the release's `manifest.json`.
pub(crate) fn manifest_checksum(url: &str, manifest: &str) -> Result<String, String> {
    let (_, pointer) = url
        .split_once('#')
        .ok_or_else(|| format!("{url} has no JSON pointer fragment"))?;
    sandbox_agent_adapter_kit::checksum::json_pointer(manifest, pointer)
}

/// The platform suffix Anthropic uses: `linux-x64`, `linux-arm64-musl`, `darwin-arm64`,
/// `win32-x64`...
fn platform_name(target: &Platform) -> String {
    let node = target.node_name();
    if target.is_musl() {
        format!("{node}-musl")
    } else {
        node
    }
}

/// The version in `--version` output or a registry document (the kit's version word).
pub(crate) use sandbox_agent_adapter_kit::text::version_word as parse_version;

/// The body of the release bucket's `latest` file is the version itself.
pub(crate) use sandbox_agent_adapter_kit::text::version_word as parse_latest_version;
