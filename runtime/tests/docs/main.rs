//! The documentation says what the code says, and its links lead somewhere:
//!
//! - the generated regions of the pages are what their sources render to today:
//!   `docs/configuration.md` from the command line's clap definitions
//!   (`agentplex_cli::Cli::command()`), the help block of `docs/cli.md` from the
//!   binary's `--help`, and `docs/api-reference.md` from `docs/openapi.json`;
//! - every relative link of the docs, the README and the other top-level pages
//!   names a file of the repository, and a `#fragment` into a Markdown page names one
//!   of its headings.
//!
//! A generated region sits between `<!-- BEGIN GENERATED: NAME -->` and
//! `<!-- END GENERATED: NAME -->`; everything around it is written by hand. After
//! changing a source, rewrite the regions with
//! `AGENTPLEX_BLESS=1 cargo test -p agentplex --test docs`.

#[path = "../common/mod.rs"]
mod common;

mod api_reference;
mod architecture;
mod configuration;
mod help;
mod links;

use std::path::{Path, PathBuf};

/// The repository's root folder.
fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("runtime/ has a parent")
        .to_owned()
}

/// Whether this run rewrites the generated regions instead of checking them.
fn blessing() -> bool {
    std::env::var_os("AGENTPLEX_BLESS").is_some_and(|value| value == "1")
}

/// Checks that the region `name` of the page at `page` (relative to the repository)
/// holds `generated`, or writes it there when blessing.
fn check_region(page: &str, name: &str, generated: &str) {
    let path = repo().join(page);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{page}: {e}"));
    let begin = format!("<!-- BEGIN GENERATED: {name} -->\n");
    let end = format!("<!-- END GENERATED: {name} -->");
    let start = text
        .find(&begin)
        .unwrap_or_else(|| panic!("{page} has no `{}` line", begin.trim_end()))
        + begin.len();
    let stop = start
        + text[start..]
            .find(&end)
            .unwrap_or_else(|| panic!("{page} has no `{end}` line"));
    let committed = &text[start..stop];
    if committed == generated {
        return;
    }
    if blessing() {
        let updated = format!("{}{generated}{}", &text[..start], &text[stop..]);
        std::fs::write(&path, updated).unwrap_or_else(|e| panic!("{page}: {e}"));
        return;
    }
    let diff = similar::TextDiff::from_lines(committed, generated)
        .unified_diff()
        .header("committed", "generated")
        .to_string();
    panic!(
        "the `{name}` region of {page} is stale; rewrite it with \
         `AGENTPLEX_BLESS=1 cargo test -p agentplex --test docs`:\n{diff}"
    );
}

/// A table cell: one line, pipes escaped.
fn cell(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace('|', "\\|")
}

#[test]
fn a_region_is_found_between_its_marks() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("page.md");
    std::fs::write(
        &page,
        "intro\n<!-- BEGIN GENERATED: t -->\nold\n<!-- END GENERATED: t -->\nafter\n",
    )
    .unwrap();
    // An absolute path: `repo().join` keeps it as it is.
    let page = page.to_str().unwrap();
    check_region(page, "t", "old\n");
    let stale = std::panic::catch_unwind(|| check_region(page, "t", "new\n"));
    if !blessing() {
        assert!(stale.is_err(), "a stale region must fail");
    }
    assert_eq!(cell("a |\n b"), "a \\| b");
}
