//! The files adapters write in their session's scratch folder (`WriteFile`).

use std::path::Path;

use agentplex_host::FileWrite;

/// Writes a file an adapter asked for under the session's scratch folder (its path
/// was checked by the host to be relative, without `..`): 0600 (0700 executable)
/// from its first byte, as it may hold secrets (an MCP configuration), written
/// beside its place and renamed there.
pub fn write_file(scratch: &Path, file: &FileWrite) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::PermissionsExt;
    let path = scratch.join(&file.path);
    let parent = path.parent().unwrap_or(scratch);
    std::fs::create_dir_all(parent)?;
    // Created 0600 by `tempfile`.
    let mut staged = tempfile::NamedTempFile::new_in(parent)?;
    staged.write_all(&file.contents)?;
    if file.executable {
        staged
            .as_file()
            .set_permissions(std::fs::Permissions::from_mode(0o700))?;
    }
    staged.persist(&path).map_err(|error| error.error)?;
    Ok(())
}

impl crate::SessionManager {
    /// Keeps a file a client sent with a message (an image given as bytes over
    /// ACP) in the session's scratch folder, under `attachments/`, named by its
    /// contents; answers its absolute path, for the message's part.
    pub fn keep_attachment(
        &self,
        session_id: &str,
        contents: Vec<u8>,
        extension: &str,
    ) -> std::io::Result<std::path::PathBuf> {
        // The first 96 bits of its SHA-256, in hex.
        let name = crate::moves::archive::digest(&contents).sha256[..24].to_owned();
        let scratch = crate::scratch_dir(&self.scratch_root, session_id);
        let file = FileWrite {
            path: format!("attachments/{name}.{extension}"),
            contents,
            executable: false,
        };
        write_file(&scratch, &file)?;
        Ok(scratch.join(&file.path))
    }
}
