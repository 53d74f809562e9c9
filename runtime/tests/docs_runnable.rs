//! The documentation's examples run: every fenced block marked ```` ```bash runnable ````
//! in `docs/` is run, in page order, against a fresh daemon per page (token in
//! `$TOKEN`, its address in `$E`, the headers in `$AUTH` and `$JSON` as the pages
//! say, `agentplex` on `PATH`). A block must exit 0, and when a ```` ```json ````
//! block follows it, what it printed must hold everything that block shows: the
//! same keys with the same values (times and other per-run values only by type),
//! objects possibly with more keys, arrays possibly with more elements.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{binary, Daemon, Options};
use serde_json::Value;

const TOKEN: &str = "docs-example-token";

/// Pages whose examples a newcomer runs first: each must keep runnable ones.
const MUST_RUN: [&str; 5] = [
    "quickstart.md",
    "troubleshooting.md",
    "migrating.md",
    "api.md",
    "processes.md",
];

/// Values that differ from run to run: only their type is compared.
const PER_RUN: [&str; 9] = [
    "time",
    "createdAt",
    "updatedAt",
    "uptimeMs",
    "path",
    "directory",
    "created_at",
    "updated_at",
    "durationMs",
];

/// One runnable block of a page.
struct Example {
    line: usize,
    script: String,
    /// The ```json block right after it.
    shows: Option<String>,
}

/// The runnable blocks of a Markdown page, in order.
fn examples(page: &str) -> Vec<Example> {
    let lines: Vec<&str> = page.lines().collect();
    let mut examples = Vec::new();
    let mut index = 0;
    while index < lines.len() {
        let info = lines[index].trim_start().strip_prefix("```").unwrap_or("");
        let runnable = info.starts_with("bash") && info.split_whitespace().any(|w| w == "runnable");
        if !runnable {
            index += 1;
            continue;
        }
        let (script, next) = fenced_body(&lines, index);
        let shows = lines
            .get(next)
            .filter(|line| line.trim() == "```json")
            .map(|_| fenced_body(&lines, next).0);
        examples.push(Example {
            line: index + 1,
            script,
            shows,
        });
        index = next;
    }
    examples
}

/// The body of the block opened at `open`, and the line after its closing fence.
fn fenced_body(lines: &[&str], open: usize) -> (String, usize) {
    let close = (open + 1..lines.len())
        .find(|&i| lines[i].trim() == "```")
        .unwrap_or_else(|| panic!("unclosed block at line {}", open + 1));
    (lines[open + 1..close].join("\n"), close + 1)
}

/// Whether `actual` holds everything `shown` shows (see the module's comment).
fn holds(actual: &Value, shown: &Value, key: &str, at: &str) -> Result<(), String> {
    match (shown, actual) {
        (Value::Object(shown), Value::Object(actual)) => shown.iter().try_for_each(|(k, v)| {
            let actual = actual.get(k).ok_or_else(|| format!("{at}.{k}: missing"))?;
            holds(actual, v, k, &format!("{at}.{k}"))
        }),
        (Value::Array(shown), Value::Array(actual)) => {
            shown.iter().enumerate().try_for_each(|(i, v)| {
                actual
                    .iter()
                    .any(|a| holds(a, v, key, "").is_ok())
                    .then_some(())
                    .ok_or_else(|| format!("{at}[{i}]: no element like {v}"))
            })
        }
        _ if PER_RUN.contains(&key) => (std::mem::discriminant(shown)
            == std::mem::discriminant(actual))
        .then_some(())
        .ok_or_else(|| format!("{at}: {actual} is not of the type of {shown}")),
        _ => (shown == actual)
            .then_some(())
            .ok_or_else(|| format!("{at}: is {actual}, the page shows {shown}")),
    }
}

fn run_page(page: &Path, examples: &[Example]) -> Vec<String> {
    let daemon = Daemon::start_with(Options {
        token: Some(TOKEN.into()),
        ..Options::default()
    });
    let work = tempfile::tempdir().unwrap();
    let bin_dir = Path::new(&binary()).parent().unwrap().to_owned();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut failures = Vec::new();
    for example in examples {
        let output = Command::new("bash")
            .args(["-eo", "pipefail", "-c", &example.script])
            .current_dir(work.path())
            .env("PATH", &path)
            .env("TOKEN", TOKEN)
            .env("E", &daemon.endpoint)
            .env("AUTH", format!("Authorization: Bearer {TOKEN}"))
            .env("JSON", "content-type: application/json")
            .env("AGENTPLEX_ENDPOINT", &daemon.endpoint)
            .env("AGENTPLEX_TOKEN", TOKEN)
            .output()
            .expect("running bash");
        let place = format!("{}:{}", page.display(), example.line);
        let stdout = String::from_utf8_lossy(&output.stdout);
        if !output.status.success() {
            failures.push(format!(
                "{place}: exited with {}\n{stdout}{}",
                output.status,
                String::from_utf8_lossy(&output.stderr)
            ));
            continue;
        }
        let Some(shows) = &example.shows else {
            continue;
        };
        let shown: Value = serde_json::from_str(shows)
            .unwrap_or_else(|e| panic!("{place}: the json block after it does not parse: {e}"));
        match serde_json::from_str::<Value>(&stdout) {
            Ok(actual) => {
                if let Err(difference) = holds(&actual, &shown, "", "$") {
                    failures.push(format!("{place}: {difference}\nprinted: {stdout}"));
                }
            }
            Err(error) => failures.push(format!("{place}: printed no JSON ({error}): {stdout}")),
        }
    }
    failures
}

fn pages(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            pages(&path, found);
        } else if path.extension().is_some_and(|e| e == "md") {
            found.push(path);
        }
    }
}

#[test]
fn the_runnable_examples_of_the_docs_run_and_print_what_they_show() {
    let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs");
    let mut found = Vec::new();
    pages(&docs, &mut found);
    found.sort();
    let mut failures = Vec::new();
    let mut ran = 0;
    let mut with_examples = Vec::new();
    for page in found {
        let text = std::fs::read_to_string(&page).unwrap();
        let examples = examples(&text);
        if examples.is_empty() {
            continue;
        }
        ran += examples.len();
        let name = page.strip_prefix(&docs).unwrap().to_owned();
        failures.extend(run_page(&name, &examples));
        with_examples.push(name);
    }
    assert!(ran >= 10, "only {ran} runnable examples found in docs/");
    for page in MUST_RUN {
        assert!(
            with_examples.iter().any(|name| name == Path::new(page)),
            "docs/{page} has no runnable example"
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn a_shown_answer_is_checked_key_by_key() {
    let actual: Value =
        serde_json::json!({"a": 1, "b": [{"id": "x", "n": 2}, {"id": "y"}], "time": "t2"});
    assert!(holds(
        &actual,
        &serde_json::json!({"b": [{"id": "y"}], "time": "t1"}),
        "",
        "$"
    )
    .is_ok());
    assert!(holds(&actual, &serde_json::json!({"a": 2}), "", "$").is_err());
    assert!(holds(&actual, &serde_json::json!({"c": 1}), "", "$").is_err());
    assert!(holds(&actual, &serde_json::json!({"b": [{"id": "z"}]}), "", "$").is_err());
    assert!(holds(&actual, &serde_json::json!({"time": 3}), "", "$").is_err());
}
