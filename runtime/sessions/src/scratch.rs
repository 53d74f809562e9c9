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
