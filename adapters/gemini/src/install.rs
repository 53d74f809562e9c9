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

/// The version in `--version` output or a registry document (the kit's version word).
pub(crate) use sandbox_agent_adapter_kit::text::version_word as parse_version;
