//! Reading the SHA-256 a vendor publishes for a download (for `parse-checksum`).
//!
//! Vendors publish checksums in two shapes: `sha256sum` output (one `DIGEST  FILE`
//! line per file, or a bare digest) and a field of a JSON manifest. An adapter's
//! `Adapter::parse_checksum` picks the one its vendor uses.

/// The digest for `file_name` in `sha256sum` output: the line naming that file, or
/// the only digest of the document.
pub fn sha256sum(body: &str, file_name: &str) -> Result<String, String> {
    let digests: Vec<(String, bool)> = body
        .lines()
        .filter_map(|line| {
            let mut words = line.split_whitespace();
            let digest = words.next().filter(|word| is_digest(word))?;
            let names_file = words
                .any(|word| word.trim_start_matches('*').rsplit('/').next() == Some(file_name));
            Some((digest.to_ascii_lowercase(), names_file))
        })
        .collect();
    if let Some((digest, _)) = digests.iter().find(|(_, names_file)| *names_file) {
        return Ok(digest.clone());
    }
    match digests.as_slice() {
        [(digest, _)] => Ok(digest.clone()),
        [] => Err("no SHA-256 digest in the checksum document".into()),
        _ => Err(format!(
            "the checksum document names no digest for {file_name}"
        )),
    }
}

/// The digest at `pointer` (RFC 6901, `/platforms/linux-x64/checksum`) of a JSON
/// manifest.
pub fn json_pointer(body: &str, pointer: &str) -> Result<String, String> {
    let manifest: serde_json::Value =
        serde_json::from_str(body).map_err(|e| format!("checksum manifest is not JSON: {e}"))?;
    let digest = manifest
        .pointer(pointer)
        .and_then(serde_json::Value::as_str)
        .ok_or_else(|| format!("checksum manifest has no string at {pointer}"))?;
    if is_digest(digest) {
        Ok(digest.to_ascii_lowercase())
    } else {
        Err(format!("{digest:?} at {pointer} is not a SHA-256 digest"))
    }
}

/// 64 hex digits.
fn is_digest(word: &str) -> bool {
    word.len() == 64 && word.bytes().all(|b| b.is_ascii_hexdigit())
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    const B: &str = "BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB";

    #[test]
    fn sha256sum_output_or_a_bare_digest() {
        assert_eq!(sha256sum(&format!("{A}\n"), "x").unwrap(), A);
        let sums = format!("{A}  tool-linux.tar.gz\n{B} *dist/tool-darwin.zip\n");
        assert_eq!(
            sha256sum(&sums, "tool-darwin.zip").unwrap(),
            B.to_ascii_lowercase()
        );
        assert_eq!(sha256sum(&sums, "tool-linux.tar.gz").unwrap(), A);
        assert!(sha256sum(&sums, "other")
            .unwrap_err()
            .contains("no digest for other"));
        assert!(sha256sum("<html>not found</html>", "x").is_err());
    }

    #[test]
    fn a_field_of_a_json_manifest() {
        let manifest = format!(r#"{{"platforms":{{"linux-x64":{{"checksum":"{A}"}}}}}}"#);
        assert_eq!(
            json_pointer(&manifest, "/platforms/linux-x64/checksum").unwrap(),
            A
        );
        assert!(json_pointer(&manifest, "/platforms/win32-x64/checksum").is_err());
        assert!(json_pointer("<html>", "/x").is_err());
        assert!(json_pointer(r#"{"x":"abc"}"#, "/x")
            .unwrap_err()
            .contains("not a SHA-256"));
    }
}
