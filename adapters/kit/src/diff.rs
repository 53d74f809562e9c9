//! Unified diffs for the `file_ref` parts of file changes.
//!
//! The diffs are hunks only (no `---`/`+++` header): the path is in the `file_ref`
//! part ([`crate::item::file_ref`]).

/// The diff that creates a file holding `content`: one hunk adding every line, with
/// the `\ No newline at end of file` marker when the content does not end with one.
///
/// ```
/// use sandbox_agent_adapter_kit::diff;
///
/// assert_eq!(diff::created("a\nb\n"), "@@ -0,0 +1,2 @@\n+a\n+b\n");
/// assert_eq!(
///     diff::created("hi"),
///     "@@ -0,0 +1,1 @@\n+hi\n\\ No newline at end of file\n"
/// );
/// assert_eq!(diff::created(""), "@@ -0,0 +1,0 @@\n");
/// ```
pub fn created(content: &str) -> String {
    let lines: Vec<&str> = content.lines().collect();
    let mut diff = format!("@@ -0,0 +1,{} @@\n", lines.len());
    for line in &lines {
        diff.push('+');
        diff.push_str(line);
        diff.push('\n');
    }
    if !content.is_empty() && !content.ends_with('\n') {
        diff.push_str("\\ No newline at end of file\n");
    }
    diff
}
