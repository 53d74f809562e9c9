//! Reading the SHA-256 a vendor publishes for a download (for `parse-checksum`).
//!
//! Vendors publish checksums in three shapes: `sha256sum` output (one `DIGEST  FILE`
//! line per file, or a bare digest), a field of a JSON manifest, and, for every
//! asset of a GitHub release, the digest GitHub computed at upload in the
//! release's API document. An adapter's `Adapter::parse_checksum` picks the one
//! its vendor uses.

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

/// The digest of the asset `file_name` in a GitHub release's API document (see
/// [`crate::install::github_release_document`]): the asset's `digest`,
/// `sha256:<hex>`, which GitHub computes for every asset uploaded since June 2025.
pub fn github_asset_digest(body: &str, file_name: &str) -> Result<String, String> {
    let release: serde_json::Value =
        serde_json::from_str(body).map_err(|e| format!("release document is not JSON: {e}"))?;
    let asset = release["assets"]
        .as_array()
        .and_then(|assets| assets.iter().find(|asset| asset["name"] == file_name))
        .ok_or_else(|| format!("the release has no asset {file_name}"))?;
    let digest = asset["digest"].as_str().ok_or_else(|| {
        format!("the release's asset {file_name} has no digest (GitHub records them for assets uploaded since June 2025)")
    })?;
    match digest.strip_prefix("sha256:") {
        Some(hex) if is_digest(hex) => Ok(hex.to_ascii_lowercase()),
        _ => Err(format!("{digest:?} of {file_name} is not a SHA-256 digest")),
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

    #[test]
    fn the_digest_of_a_github_release_asset() {
        let release = format!(
            r#"{{"tag_name":"v1","assets":[
                {{"name":"tool-linux.tar.gz","digest":"sha256:{A}"}},
                {{"name":"tool-darwin.zip","digest":"sha256:{B}"}},
                {{"name":"old.tar.gz","digest":null}},
                {{"name":"md5.tar.gz","digest":"md5:0123"}}]}}"#
        );
        assert_eq!(
            github_asset_digest(&release, "tool-linux.tar.gz").unwrap(),
            A
        );
        assert_eq!(
            github_asset_digest(&release, "tool-darwin.zip").unwrap(),
            B.to_ascii_lowercase()
        );
        assert!(github_asset_digest(&release, "other.zip")
            .unwrap_err()
            .contains("no asset other.zip"));
        assert!(github_asset_digest(&release, "old.tar.gz")
            .unwrap_err()
            .contains("has no digest"));
        assert!(github_asset_digest(&release, "md5.tar.gz")
            .unwrap_err()
            .contains("not a SHA-256"));
        assert!(github_asset_digest("<html>rate limited</html>", "x")
            .unwrap_err()
            .contains("not JSON"));
    }
}
