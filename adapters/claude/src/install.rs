//! Where the `claude` binary comes from, and how to read its version.
//!
//! Anthropic publishes one native binary per platform, both in its release bucket
//! (`<bucket>/<version>/<platform>/claude`, the latest version named by
//! `<bucket>/latest`) and as npm packages `@anthropic-ai/claude-code-<platform>`
//! holding the binary at the package root (the `@anthropic-ai/claude-code` wrapper
//! lists them as optional dependencies).

use sandbox_agent_adapter_kit::prelude::*;

/// The release bucket.
const BUCKET: &str = "https://storage.googleapis.com/claude-code-dist-86c565f3-f756-42ad-8dfa-d59b1c096819/claude-code-releases";

/// The recipe for `target`: the release download, then the npm package.
pub(crate) fn recipe(target: &Platform) -> Option<InstallRecipe> {
    let platform = platform_name(target);
    let binary = match target.os {
        Os::Windows => "claude.exe",
        Os::Linux | Os::Macos => "claude",
    };
    Some(InstallRecipe {
        binary_name: binary.to_owned(),
        latest_version_url: Some(format!("{BUCKET}/latest")),
        sources: vec![InstallSource {
            url: format!("{BUCKET}/{{version}}/{platform}/{binary}"),
            archive: ArchiveKind::None,
            binary_path: binary.to_owned(),
            sha256_url: None,
        }],
        npm_package: Some(format!("@anthropic-ai/claude-code-{platform}")),
        npm_binary_path: Some(binary.to_owned()),
    })
}

/// The platform suffix Anthropic uses: `linux-x64`, `linux-arm64-musl`, `darwin-arm64`,
/// `win32-x64`...
fn platform_name(target: &Platform) -> String {
    let arch = match target.arch {
        Arch::X8664 => "x64",
        Arch::Aarch64 => "arm64",
    };
    match (target.os, target.libc) {
        (Os::Linux, Some(Libc::Musl)) => format!("linux-{arch}-musl"),
        (Os::Linux, _) => format!("linux-{arch}"),
        (Os::Macos, _) => format!("darwin-{arch}"),
        (Os::Windows, _) => format!("win32-{arch}"),
    }
}

/// The first word of `text` that looks like a version (`2.1.197`), as `claude
/// --version` prints it (`2.1.197 (Claude Code)`) and as the bucket's `latest` holds it.
pub(crate) fn parse_version(text: &str) -> Option<String> {
    text.split_whitespace()
        .find(|word| {
            let mut parts = word.split('.');
            parts.clone().count() >= 2
                && parts.all(|part| !part.is_empty() && part.chars().all(|c| c.is_ascii_digit()))
        })
        .map(str::to_owned)
}
