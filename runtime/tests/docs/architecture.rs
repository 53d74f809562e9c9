//! The architecture page and the code map name only files that exist, and the
//! architecture page's table of crate layers is what the manifests say.

use std::collections::BTreeMap;
use std::path::Path;

use super::repo;

/// The pages that describe the code.
const PAGES: [&str; 2] = ["docs/architecture.md", "docs/internals/code-map.md"];

/// The repository's top-level folders a path in the pages may start with.
const TOP: [&str; 14] = [
    "adapters",
    "api",
    "client",
    "docs",
    "examples",
    "host-api",
    "inspector",
    "runtime",
    "scripts",
    "sdks",
    "testing",
    "universal",
    "wit",
    "npm",
];

#[test]
fn every_path_the_architecture_pages_name_exists() {
    let mut missing = Vec::new();
    let mut named = 0;
    for page in PAGES {
        let text = std::fs::read_to_string(repo().join(page)).unwrap();
        for path in code_spans(&text).filter(|span| looks_like_a_path(span)) {
            named += 1;
            if !repo().join(path.trim_end_matches('/')).exists() {
                missing.push(format!("{page}: {path}"));
            }
        }
    }
    assert!(
        named > 20,
        "only {named} paths found: is the pattern right?"
    );
    assert!(
        missing.is_empty(),
        "paths named that do not exist: {missing:#?}"
    );
}

#[test]
fn each_crate_uses_only_crates_of_lower_layers() {
    let text = std::fs::read_to_string(repo().join(PAGES[0])).unwrap();
    let layers = layers(&text);
    assert!(layers.len() >= 10, "the layer table lists only {layers:?}");
    // Every crate under runtime/ has a layer.
    let runtime = repo().join("runtime");
    let mut manifests = vec![runtime.join("Cargo.toml")];
    for entry in std::fs::read_dir(&runtime).unwrap() {
        let manifest = entry.unwrap().path().join("Cargo.toml");
        if manifest.is_file() {
            manifests.push(manifest);
        }
    }
    manifests.push(repo().join("host-api/Cargo.toml"));
    manifests.push(repo().join("host-api/types/Cargo.toml"));
    let mut wrong = Vec::new();
    for manifest in manifests {
        let (name, dependencies) = read_manifest(&manifest);
        let Some(&layer) = layers.get(&name) else {
            wrong.push(format!("{name} ({}) has no layer", manifest.display()));
            continue;
        };
        for dependency in dependencies {
            if let Some(&below) = layers.get(&dependency) {
                if below >= layer {
                    wrong.push(format!(
                        "{name} (layer {layer}) uses {dependency} (layer {below})"
                    ));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}: {wrong:#?}", PAGES[0]);
}

/// The text of every `code span` of a Markdown page.
fn code_spans(text: &str) -> impl Iterator<Item = &str> {
    text.split('`').skip(1).step_by(2)
}

/// A repository path: a known top-level folder, then `/`, and no spaces or
/// placeholders.
fn looks_like_a_path(span: &str) -> bool {
    let Some((top, _)) = span.split_once('/') else {
        return false;
    };
    TOP.contains(&top)
        && !span.contains([' ', '<', '*', '{', '$'])
        && Path::new(span).extension().is_none_or(|e| e != "wasm")
}

/// The layer table (`| 3 | `a`, `b` |`) as crate name -> layer.
fn layers(text: &str) -> BTreeMap<String, u32> {
    let mut layers = BTreeMap::new();
    for line in text.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let [_, layer, crates, _] = cells[..] else {
            continue;
        };
        let Ok(layer) = layer.parse::<u32>() else {
            continue;
        };
        for name in code_spans(crates) {
            layers.insert(name.to_owned(), layer);
        }
    }
    layers
}

/// A manifest's package name and the names of its normal dependencies.
fn read_manifest(path: &Path) -> (String, Vec<String>) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut section = String::new();
    let mut name = String::new();
    let mut dependencies = Vec::new();
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            section = line.to_owned();
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        let key = key.trim();
        if section == "[package]" && key == "name" {
            name = value.trim().trim_matches('"').to_owned();
        } else if section == "[dependencies]" {
            dependencies.push(key.trim_end_matches(".workspace").to_owned());
        }
    }
    (name, dependencies)
}
