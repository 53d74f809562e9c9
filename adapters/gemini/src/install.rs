//! Where the `gemini` CLI comes from, and how to read its version.
//!
//! Google publishes the CLI as the npm package `@google/gemini-cli`: one JavaScript
//! bundle for every platform (`bundle/gemini.js`, run by Node.js 20 or later, which
//! the machine must have).

use sandbox_agent_adapter_kit::prelude::*;

/// The recipe (the same on every platform): the npm package's bundle.
pub(crate) fn recipe() -> InstallRecipe {
    InstallRecipe {
        binary_name: "gemini".to_owned(),
        latest_version_url: None,
        sources: Vec::new(),
        npm_package: Some("@google/gemini-cli".to_owned()),
        npm_binary_path: Some("bundle/gemini.js".to_owned()),
    }
}

/// The first word of `text` that looks like a version (`0.61.0`), as `gemini
/// --version` prints it.
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
