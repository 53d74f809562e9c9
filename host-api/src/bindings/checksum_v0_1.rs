//! Published SHA-256 checksums as 0.1.0 components name them. A checksum URL's body is read as:
//! - with a fragment that is a JSON pointer (`manifest.json#/platforms/linux-x64/checksum`,
//!   RFC 6901 §6): the string at that pointer of the JSON body;
//! - otherwise `sha256sum` output or a bare digest: the digest on the line naming the
//!   downloaded file, or the only digest in the body.

/// The checksum URL without its fragment (what is fetched) and the JSON pointer in
/// the fragment, if any.
pub(crate) fn split_pointer(url: &str) -> (&str, Option<&str>) {
    match url.split_once('#') {
        Some((base, pointer)) if pointer.starts_with('/') => (base, Some(pointer)),
        Some((base, _)) => (base, None),
        None => (url, None),
    }
}

/// The expected lowercase hex digest for `file_name` in a checksum document.
pub(crate) fn expected_digest(
    body: &str,
    pointer: Option<&str>,
    file_name: &str,
) -> Result<String, String> {
    if let Some(pointer) = pointer {
        let document: serde_json::Value = serde_json::from_str(body)
            .map_err(|e| format!("checksum document is not JSON: {e}"))?;
        let digest = document
            .pointer(pointer)
            .and_then(serde_json::Value::as_str)
            .ok_or_else(|| format!("checksum document has no string at {pointer}"))?;
        return is_digest(digest)
            .then(|| digest.to_ascii_lowercase())
            .ok_or_else(|| format!("{digest:?} at {pointer} is not a SHA-256 digest"));
    }
    let mut digests = body.lines().filter_map(|line| {
        let digest = line.split_whitespace().find(|word| is_digest(word))?;
        let names_file = line
            .split_whitespace()
            .any(|word| word.trim_start_matches('*').rsplit('/').next() == Some(file_name));
        Some((digest.to_ascii_lowercase(), names_file))
    });
    let all: Vec<(String, bool)> = digests.by_ref().collect();
    if let Some((digest, _)) = all.iter().find(|(_, names_file)| *names_file) {
        return Ok(digest.clone());
    }
    match all.as_slice() {
        [(digest, _)] => Ok(digest.clone()),
        [] => Err("no SHA-256 digest in the checksum document".into()),
        _ => Err(format!(
            "the checksum document names no digest for {file_name}"
        )),
    }
}

/// 64 hex digits.
fn is_digest(word: &str) -> bool {
    word.len() == 64 && word.chars().all(|c| c.is_ascii_hexdigit())
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    const B: &str = "BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB";

    #[test]
    fn a_bare_digest_or_sha256sum_output() {
        assert_eq!(expected_digest(&format!("{A}\n"), None, "x").unwrap(), A);
        let sums = format!("{A}  tool-linux.tar.gz\n{B} *tool-darwin.zip\n");
        assert_eq!(
            expected_digest(&sums, None, "tool-darwin.zip").unwrap(),
            B.to_ascii_lowercase()
        );
        assert_eq!(
            expected_digest(&sums, None, "tool-linux.tar.gz").unwrap(),
            A
        );
        assert!(expected_digest(&sums, None, "other").is_err());
        assert!(expected_digest("not found", None, "x").is_err());
    }

    #[test]
    fn a_json_pointer_fragment_picks_from_a_manifest() {
        let url = "https://h/1.0/manifest.json#/platforms/linux-x64/checksum";
        let (base, pointer) = split_pointer(url);
        assert_eq!(base, "https://h/1.0/manifest.json");
        let manifest = format!(
            r#"{{"platforms":{{"linux-x64":{{"checksum":"{A}"}},"darwin-x64":{{"checksum":"{B}"}}}}}}"#
        );
        assert_eq!(expected_digest(&manifest, pointer, "claude").unwrap(), A);
        assert!(
            expected_digest(&manifest, Some("/platforms/win32-x64/checksum"), "claude").is_err()
        );
        assert!(expected_digest("<html>", pointer, "claude").is_err());
        assert_eq!(split_pointer("https://h/SUMS#x"), ("https://h/SUMS", None));
    }
}
