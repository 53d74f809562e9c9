//! Where downloads come from: recipe URLs with `{version}` filled in and, with a
//! releases mirror, rewritten to it (`https://host/path` → `<mirror>/host/path`);
//! and the npm package spec to ask npm for.

/// What to install from, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum SourcePreference {
    /// The vendor's release downloads, then the npm package when they fail.
    #[default]
    Auto,
    /// The vendor's release downloads only.
    Release,
    /// The npm package only (through the `npm` client and its configured registry).
    Npm,
}

impl SourcePreference {
    /// Whether the recipe's download sources are tried.
    pub fn releases(self) -> bool {
        self != Self::Npm
    }

    /// Whether the npm package is tried.
    pub fn npm(self) -> bool {
        self != Self::Release
    }

    /// Its name as `--install-source` takes it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::Release => "release",
            Self::Npm => "npm",
        }
    }
}

/// Rewrites vendor URLs to a mirror that serves `<mirror>/<host>/<path>`.
#[derive(Debug, Clone, Default)]
pub struct Mirror {
    base: Option<String>,
}

impl Mirror {
    /// A mirror at `base` (`http://127.0.0.1:8080`, `https://mirror.example/agents`),
    /// or none.
    pub fn new(base: Option<String>) -> Self {
        Self {
            base: base
                .map(|base| base.trim_end_matches('/').to_owned())
                .filter(|base| !base.is_empty()),
        }
    }

    /// `url` as fetched: unchanged without a mirror, else the mirror's copy.
    pub fn rewrite(&self, url: &str) -> String {
        let Some(base) = &self.base else {
            return url.to_owned();
        };
        let rest = url
            .strip_prefix("https://")
            .or_else(|| url.strip_prefix("http://"))
            .unwrap_or(url);
        format!("{base}/{rest}")
    }
}

/// `template` with every `{version}` replaced; `None` when it needs a version
/// and none is known.
pub fn with_version(template: &str, version: Option<&str>) -> Option<String> {
    match version {
        Some(version) => Some(template.replace("{version}", version)),
        None => (!template.contains("{version}")).then(|| template.to_owned()),
    }
}

/// The spec handed to `npm`: the recipe's package as is when it already names a
/// version (`@vendor/tool@0.1.0-linux-x64`), else `package@version` or the bare
/// package (npm's `latest`).
pub fn npm_spec(package: &str, version: Option<&str>) -> String {
    let has_version = package.char_indices().any(|(at, c)| c == '@' && at > 0);
    match version {
        Some(version) if !has_version => format!("{package}@{version}"),
        _ => package.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mirror_serves_host_and_path() {
        let mirror = Mirror::new(Some("http://127.0.0.1:9/".into()));
        assert_eq!(
            mirror.rewrite("https://github.com/o/r/releases/download/v1/a.tar.gz"),
            "http://127.0.0.1:9/github.com/o/r/releases/download/v1/a.tar.gz"
        );
        assert_eq!(Mirror::new(None).rewrite("https://x/y"), "https://x/y");
        assert_eq!(
            Mirror::new(Some(String::new())).rewrite("https://x/y"),
            "https://x/y"
        );
    }

    #[test]
    fn versions_fill_templates() {
        assert_eq!(
            with_version("https://h/{version}/a", Some("1.2")).unwrap(),
            "https://h/1.2/a"
        );
        assert_eq!(with_version("https://h/{version}/a", None), None);
        assert_eq!(
            with_version("https://h/latest/a", None).unwrap(),
            "https://h/latest/a"
        );
    }

    #[test]
    fn npm_specs_keep_a_version_the_recipe_names() {
        assert_eq!(npm_spec("@scope/pkg", Some("1.0.0")), "@scope/pkg@1.0.0");
        assert_eq!(npm_spec("pkg", None), "pkg");
        assert_eq!(
            npm_spec("@openai/codex@1.0.0-linux-x64", Some("1.0.0")),
            "@openai/codex@1.0.0-linux-x64"
        );
        assert_eq!(
            npm_spec("opencode-linux-x64@1.0.0", Some("2.0.0")),
            "opencode-linux-x64@1.0.0"
        );
    }
}
