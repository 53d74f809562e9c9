//! Where an agent's program is: the daemon's install folder first (agents it
//! installed win), then `PATH`.

use std::path::{Path, PathBuf};

/// Finds a program: a path as given; a bare name in the daemon's install dir
/// (agents it installed win), then on PATH.
pub fn locate_program(program: &str, install_dir: &Path) -> Option<PathBuf> {
    if program.contains('/') {
        return Some(PathBuf::from(program));
    }
    let installed = install_dir.join(program);
    if installed.is_file() {
        return Some(installed);
    }
    which::which(program).ok()
}
