//! Every relative link of the documentation resolves: the pages of `docs/`, the
//! top-level pages and every README of the repository.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::repo;

#[test]
fn every_relative_link_of_the_docs_resolves() {
    let root = repo();
    let mut pages = Vec::new();
    markdown_files(&root.join("docs"), &mut pages);
    for top in [
        "README.md",
        "CONTRIBUTING.md",
        "SECURITY.md",
        "CHANGELOG.md",
    ] {
        pages.push(root.join(top));
    }
    for dir in [
        "adapters",
        "examples",
        "sdks",
        "inspector",
        "testing",
        "npm",
    ] {
        readmes(&root.join(dir), &mut pages);
    }
    assert!(pages.len() > 30, "only {} pages found", pages.len());
    let mut headings = HashMap::new();
    let mut broken = Vec::new();
    for page in &pages {
        let text =
            std::fs::read_to_string(page).unwrap_or_else(|e| panic!("{}: {e}", page.display()));
        for (line, target) in links(&text) {
            let place = format!("{}:{line}", page.strip_prefix(&root).unwrap().display());
            if let Err(why) = resolve(page, &target, &mut headings) {
                broken.push(format!("{place}: ({target}) {why}"));
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

/// Whether `target`, linked from `page`, names an existing file (and heading).
fn resolve(
    page: &Path,
    target: &str,
    headings: &mut HashMap<PathBuf, Vec<String>>,
) -> Result<(), String> {
    let (file, fragment) = match target.split_once('#') {
        Some((file, fragment)) => (file, Some(fragment)),
        None => (target, None),
    };
    let path = if file.is_empty() {
        page.to_owned()
    } else {
        page.parent().unwrap().join(file)
    };
    if !path.exists() {
        return Err("no such file".into());
    }
    let Some(fragment) = fragment else {
        return Ok(());
    };
    if path.extension().is_none_or(|e| e != "md") {
        return Ok(());
    }
    let path = path.canonicalize().unwrap();
    let slugs = headings
        .entry(path.clone())
        .or_insert_with(|| heading_slugs(&std::fs::read_to_string(&path).unwrap_or_default()));
    if slugs.iter().any(|s| s == fragment) {
        Ok(())
    } else {
        Err(format!("no heading `#{fragment}` there"))
    }
}

/// The `.md` files under `dir`.
fn markdown_files(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            markdown_files(&path, found);
        } else if path.extension().is_some_and(|e| e == "md") {
            found.push(path);
        }
    }
}

/// The `README.md` files under `dir`, outside build outputs and dependencies.
fn readmes(dir: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            if !matches!(name.as_str(), "node_modules" | "target" | "dist" | ".venv")
                && !name.starts_with('.')
            {
                readmes(&path, found);
            }
        } else if name == "README.md" {
            found.push(path);
        }
    }
}

/// The relative link targets of a Markdown text with their line numbers: outside
/// code blocks and code spans, without web addresses.
fn links(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    let mut fence: Option<&str> = None;
    for (index, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if let Some(open) = fence {
            if trimmed.starts_with(open) {
                fence = None;
            }
            continue;
        }
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            fence = Some(&trimmed[..3]);
            continue;
        }
        let prose = without_code_spans(line);
        let mut rest = prose.as_str();
        while let Some(at) = rest.find("](") {
            rest = &rest[at + 2..];
            let end = rest.find(')').unwrap_or(rest.len());
            let target = rest[..end].split_whitespace().next().unwrap_or_default();
            let web = target.contains("://") || target.starts_with("mailto:");
            if !web && !target.is_empty() {
                found.push((index + 1, target.to_owned()));
            }
            rest = &rest[end..];
        }
    }
    found
}

/// `line` with its code spans blanked out.
fn without_code_spans(line: &str) -> String {
    let mut out = String::new();
    let mut in_code = false;
    for c in line.chars() {
        if c == '`' {
            in_code = !in_code;
            out.push(' ');
        } else if in_code {
            out.push(' ');
        } else {
            out.push(c);
        }
    }
    out
}

/// The anchors of a page's headings, as GitHub makes them (a repeated one gets
/// `-1`, `-2`...).
fn heading_slugs(text: &str) -> Vec<String> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut slugs = Vec::new();
    let mut in_fence = false;
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence || !trimmed.starts_with('#') {
            continue;
        }
        let title = trimmed.trim_start_matches('#');
        if !title.starts_with(' ') {
            continue;
        }
        let base = slug(title.trim());
        let count = seen.entry(base.clone()).or_insert(0);
        slugs.push(if *count == 0 {
            base.clone()
        } else {
            format!("{base}-{count}")
        });
        *count += 1;
    }
    slugs
}

/// The anchor GitHub gives a heading: lower case, letters, digits, `-` and `_`
/// kept, spaces made `-`, everything else dropped.
pub fn slug(heading: &str) -> String {
    heading
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

#[test]
fn links_and_anchors_are_read_as_github_does() {
    assert_eq!(
        slug("`POST /v1/sessions/{session_id}`"),
        "post-v1sessionssession_id"
    );
    assert_eq!(slug("Files (`/v1/fs/*`)"), "files-v1fs");
    let text =
        "[a](x.md#one) `[b](no.md)` [web](https://e.org)\n```\n[c](no.md)\n```\n![i](p.png \"t\")";
    let found: Vec<String> = links(text).into_iter().map(|(_, t)| t).collect();
    assert_eq!(found, ["x.md#one", "p.png"]);
    assert_eq!(
        heading_slugs("# A\n## A\n```\n# no\n```\n#nope"),
        ["a", "a-1"]
    );
}
