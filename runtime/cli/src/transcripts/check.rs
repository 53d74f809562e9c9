//! A transcript folder: finding its cases, comparing their output with the expected
//! files (or rewriting them), and reporting.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use agentplex_host::LoadedAdapter;
use similar::TextDiff;

use super::input::{parse_case, Case};
use super::replay::replay;
use super::TranscriptError;

/// Suffix of the expected output of case `NAME`: `NAME.expected.jsonl`.
const EXPECTED_SUFFIX: &str = ".expected.jsonl";

/// What [`test_dir`] does with each case's output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Compare it with `NAME.expected.jsonl`; a difference or a missing file fails.
    Compare,
    /// Write it to `NAME.expected.jsonl`.
    Update,
}

/// How a folder went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Summary {
    /// Cases replayed.
    pub cases: usize,
    /// Cases whose output differs from their expected file, or that have none.
    pub failed: usize,
}

impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} cases, {} failed", self.cases, self.failed)
    }
}

/// Replays every case of `dir` (in name order) through `adapter` and prints one
/// status line per case (and a unified diff for each difference) to `report`, then
/// the summary line. Every case is read and checked before any is run, so bad input
/// fails before anything is written.
pub fn test_dir(
    adapter: &Arc<LoadedAdapter>,
    dir: &Path,
    mode: Mode,
    report: &mut dyn Write,
) -> Result<Summary, TranscriptError> {
    let cases = read_cases(dir)?;
    let mut summary = Summary {
        cases: cases.len(),
        failed: 0,
    };
    for (name, case) in cases {
        let mut actual = replay(adapter, case).join("\n");
        actual.push('\n');
        let expected_path = dir.join(format!("{name}{EXPECTED_SUFFIX}"));
        let passed = match mode {
            Mode::Compare => compare(&name, &expected_path, &actual, report)?,
            Mode::Update => update(&name, &expected_path, &actual, report)?,
        };
        summary.failed += usize::from(!passed);
    }
    writeln!(report, "{summary}").map_err(TranscriptError::Report)?;
    Ok(summary)
}

/// The cases of `dir`, parsed, by name.
fn read_cases(dir: &Path) -> Result<Vec<(String, Case)>, TranscriptError> {
    let read_error = |path: &Path| {
        let path = path.to_owned();
        move |source| TranscriptError::Read { path, source }
    };
    let mut paths: Vec<PathBuf> = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(read_error(dir))? {
        let path = entry.map_err(read_error(dir))?.path();
        if case_name(&path).is_some() && path.is_file() {
            paths.push(path);
        }
    }
    if paths.is_empty() {
        return Err(TranscriptError::NoCases {
            dir: dir.to_owned(),
        });
    }
    paths.sort();
    paths
        .iter()
        .map(|path| {
            let text = std::fs::read_to_string(path).map_err(read_error(path))?;
            let name = case_name(path).unwrap_or_default().to_owned();
            Ok((name, parse_case(path, &text)?))
        })
        .collect()
}

/// `NAME` for a case file `NAME.jsonl` (not for an expected file).
fn case_name(path: &Path) -> Option<&str> {
    let file = path.file_name()?.to_str()?;
    if file.ends_with(EXPECTED_SUFFIX) {
        return None;
    }
    file.strip_suffix(".jsonl").filter(|name| !name.is_empty())
}

fn compare(
    name: &str,
    expected_path: &Path,
    actual: &str,
    report: &mut dyn Write,
) -> Result<bool, TranscriptError> {
    let expected = match std::fs::read_to_string(expected_path) {
        Ok(expected) => expected,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            writeln!(
                report,
                "FAILED  {name}: no {} (run with --update to create it)",
                expected_path.display()
            )
            .map_err(TranscriptError::Report)?;
            return Ok(false);
        }
        Err(source) => {
            return Err(TranscriptError::Read {
                path: expected_path.to_owned(),
                source,
            })
        }
    };
    if expected == actual {
        writeln!(report, "ok      {name}").map_err(TranscriptError::Report)?;
        return Ok(true);
    }
    let expected_label = expected_path.display().to_string();
    let diff = TextDiff::from_lines(&expected, actual)
        .unified_diff()
        .header(&expected_label, "actual")
        .to_string();
    write!(
        report,
        "FAILED  {name}: the output differs from {expected_label}\n{diff}"
    )
    .map_err(TranscriptError::Report)?;
    Ok(false)
}

fn update(
    name: &str,
    expected_path: &Path,
    actual: &str,
    report: &mut dyn Write,
) -> Result<bool, TranscriptError> {
    let unchanged = std::fs::read_to_string(expected_path).is_ok_and(|old| old == actual);
    let status = if unchanged {
        "ok     "
    } else {
        std::fs::write(expected_path, actual).map_err(|source| TranscriptError::Write {
            path: expected_path.to_owned(),
            source,
        })?;
        "updated"
    };
    writeln!(report, "{status} {name}").map_err(TranscriptError::Report)?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn case_names_skip_expected_files() {
        assert_eq!(case_name(Path::new("d/text_turn.jsonl")), Some("text_turn"));
        assert_eq!(case_name(Path::new("d/text_turn.expected.jsonl")), None);
        assert_eq!(case_name(Path::new("d/notes.md")), None);
        assert_eq!(case_name(Path::new("d/.jsonl")), None);
    }

    #[test]
    fn an_empty_folder_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let error = read_cases(dir.path()).err().unwrap();
        assert!(matches!(error, TranscriptError::NoCases { .. }), "{error}");
        let missing = dir.path().join("missing");
        let error = read_cases(&missing).err().unwrap();
        assert!(error.to_string().contains("missing"), "{error}");
    }
}
