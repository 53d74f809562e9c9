//! Unified diffs for the file changes the CLI reports.
//!
//! `Edit` and `Write` results carry a `structuredPatch`: hunks of
//! `{oldStart, oldLines, newStart, newLines, lines}` whose lines already start with
//! ` `, `-` or `+`. A new file has no hunks, only its content: its diff is the kit's
//! (`sandbox_agent_adapter_kit::diff::created`). The diffs have hunks only (no
//! `---`/`+++` header): the path is in the `file_ref` part.

use serde_json::Value;

/// The diff of a `structuredPatch`, or `None` when it has no hunk.
pub(crate) fn from_hunks(hunks: &Value) -> Option<String> {
    let hunks = hunks.as_array().filter(|hunks| !hunks.is_empty())?;
    let mut diff = String::new();
    for hunk in hunks {
        let number = |key: &str| hunk.get(key).and_then(Value::as_u64).unwrap_or(0);
        diff.push_str(&format!(
            "@@ -{},{} +{},{} @@\n",
            number("oldStart"),
            number("oldLines"),
            number("newStart"),
            number("newLines")
        ));
        for line in hunk
            .get("lines")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            diff.push_str(line.as_str().unwrap_or_default());
            diff.push('\n');
        }
    }
    Some(diff)
}
