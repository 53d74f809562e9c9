//! Where the `pi` binary comes from, and how to read its version.
//!
//! Pi is a Node.js CLI published on npm as `@mariozechner/pi-coding-agent`; its `bin`
//! entry `pi` is `dist/cli.js` (a script with a `node` shebang, Node >= 20.6). The
//! project also publishes standalone builds on GitHub releases, whose archive layout
//! this adapter has not verified, so the recipe names the npm package only.

use sandbox_agent_adapter_kit::prelude::*;

/// The npm package.
const NPM_PACKAGE: &str = "@mariozechner/pi-coding-agent";
/// The `bin` entry of the npm package.
const NPM_BINARY: &str = "dist/cli.js";

/// The recipe for every platform Node runs on: the npm package, binary `pi`.
pub(crate) fn recipe(target: &Platform) -> Option<InstallRecipe> {
    let binary = match target.os {
        Os::Windows => "pi.cmd",
        Os::Linux | Os::Macos => "pi",
    };
    Some(InstallRecipe {
        binary_name: binary.to_owned(),
        latest_version_url: Some(format!("https://registry.npmjs.org/{NPM_PACKAGE}/latest")),
        sources: Vec::new(),
        npm_package: Some(NPM_PACKAGE.to_owned()),
        npm_binary_path: Some(NPM_BINARY.to_owned()),
    })
}

/// The version in the registry's `latest` document (`{"version":"0.73.1",...}`).
pub(crate) fn parse_latest(body: &str) -> Option<String> {
    let document: serde_json::Value = serde_json::from_str(body).ok()?;
    document["version"].as_str().and_then(parse_version)
}

/// The first word of `text` that looks like a version, as `pi --version` prints it
/// (`0.73.1`).
pub(crate) fn parse_version(text: &str) -> Option<String> {
    text.split_whitespace()
        .map(|word| word.trim_start_matches('v'))
        .find(|word| {
            let mut parts = word.split('.');
            parts.clone().count() >= 2
                && parts.all(|part| !part.is_empty() && part.chars().all(|c| c.is_ascii_digit()))
        })
        .map(str::to_owned)
}
