//! Unified diffs for the file changes the CLI reports.
//!
//! `Edit` and `Write` results carry a `structuredPatch`: hunks of
//! `{oldStart, oldLines, newStart, newLines, lines}` whose lines already start with
//! ` `, `-` or `+`. A new file has no hunks, only its content: its diff is the kit's
//! (`sandbox_agent_adapter_kit::diff::created`). The diffs have hunks only (no
//! `---`/`+++` header): the path is in the `file_ref` part.

use sandbox_agent_adapter_kit::native::Lenient;

use crate::native::Hunk;

/// The diff of a `structuredPatch`, or `None` when it has no hunk.
pub(crate) fn from_hunks(hunks: &[Lenient<Hunk>]) -> Option<String> {
    if hunks.is_empty() {
        return None;
    }
    let mut diff = String::new();
    for hunk in hunks {
        let hunk = hunk.get();
        let number = |of: fn(&Hunk) -> u64| hunk.map(of).unwrap_or(0);
        diff.push_str(&format!(
            "@@ -{},{} +{},{} @@\n",
            number(|h| h.old_start),
            number(|h| h.old_lines),
            number(|h| h.new_start),
            number(|h| h.new_lines)
        ));
        for line in hunk.into_iter().flat_map(|h| &h.lines) {
            diff.push_str(line.get().map(String::as_str).unwrap_or_default());
            diff.push('\n');
        }
    }
    Some(diff)
}
