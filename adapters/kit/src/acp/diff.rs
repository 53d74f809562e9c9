//! Unified diffs for the file changes an ACP agent reports as old and new text.

/// A unified diff of `path` from `old` to `new`, as one hunk over the whole file
/// (the agent reports both texts, not its own diff). An empty `old` is a new file.
pub(crate) fn unified(path: &str, old: &str, new: &str) -> String {
    let old_lines: Vec<&str> = old.lines().collect();
    let new_lines: Vec<&str> = new.lines().collect();
    let from = if old.is_empty() {
        "/dev/null".to_owned()
    } else {
        format!("a/{}", path.trim_start_matches('/'))
    };
    let mut diff = format!(
        "--- {from}\n+++ b/{}\n@@ -{} +{} @@\n",
        path.trim_start_matches('/'),
        range(old_lines.len()),
        range(new_lines.len())
    );
    for line in &old_lines {
        diff.push_str(&format!("-{line}\n"));
    }
    for line in &new_lines {
        diff.push_str(&format!("+{line}\n"));
    }
    diff
}

/// A hunk range starting at the first line: `1,3`, or `0,0` for no lines.
fn range(lines: usize) -> String {
    match lines {
        0 => "0,0".to_owned(),
        n => format!("1,{n}"),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn new_and_changed_files() {
        assert_eq!(
            super::unified("/w/a.txt", "", "hi"),
            "--- /dev/null\n+++ b/w/a.txt\n@@ -0,0 +1,1 @@\n+hi\n"
        );
        assert_eq!(
            super::unified("a.txt", "x\ny", "z"),
            "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,1 @@\n-x\n-y\n+z\n"
        );
    }
}
