//! The desktop's X authority: the X server starts with a random `MIT-MAGIC-COOKIE-1`
//! (`Xvfb -auth FILE`), so only clients that present it can connect to the display;
//! the daemon's connections present it, and programs on the desktop find it in the file
//! `XAUTHORITY` names (`<data dir>/desktop/Xauthority`, `0600`). Other users of the
//! machine cannot use the display; the daemon's user can read the file.

use std::io::Write as _;
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::{Path, PathBuf};

use x11rb::reexports::x11rb_protocol::parse_display::parse_display;
use x11rb::rust_connection::{DefaultStream, RustConnection};

use crate::DesktopError;

/// The authorization protocol.
const PROTOCOL: &[u8] = b"MIT-MAGIC-COOKIE-1";
/// An entry for any address (Xlib's `FamilyWild`).
const FAMILY_WILD: u16 = 0xffff;

/// A display's cookie and the file that holds it.
#[derive(Clone)]
pub struct Authority {
    path: PathBuf,
    cookie: [u8; 16],
}

impl Authority {
    /// A new random cookie, written to `Xauthority` in `dir` for any display (the X
    /// server reads it so at start, whatever its number).
    pub(crate) fn create(dir: &Path) -> Result<Authority, DesktopError> {
        let mut cookie = [0u8; 16];
        getrandom::fill(&mut cookie)
            .map_err(|error| DesktopError::StartFailed(format!("no random cookie: {error}")))?;
        let authority = Authority {
            path: dir.join("Xauthority"),
            cookie,
        };
        authority.write("")?;
        Ok(authority)
    }

    /// Rewrites the file for display `number` (`99` of `:99`), as clients look it up.
    pub(crate) fn for_display(&self, number: &str) -> Result<(), DesktopError> {
        self.write(number)
    }

    /// The file programs are pointed at (`XAUTHORITY`).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Connects to `display` with the cookie; answers the connection and its screen.
    pub fn connect(&self, display: &str) -> Result<(RustConnection, usize), DesktopError> {
        let refused =
            |reason: String| DesktopError::X11(format!("cannot connect to {display}: {reason}"));
        let parsed = parse_display(Some(display)).map_err(|error| refused(error.to_string()))?;
        let screen = usize::from(parsed.screen);
        let mut failure = String::from("no address to connect to");
        for address in parsed.connect_instruction() {
            match DefaultStream::connect(&address) {
                Ok((stream, _)) => {
                    let connection = RustConnection::connect_to_stream_with_auth_info(
                        stream,
                        screen,
                        PROTOCOL.to_vec(),
                        self.cookie.to_vec(),
                    )
                    .map_err(|error| refused(error.to_string()))?;
                    return Ok((connection, screen));
                }
                Err(error) => failure = error.to_string(),
            }
        }
        Err(refused(failure))
    }

    /// Writes the file: one entry for any address and display `number`, replacing
    /// what was there.
    fn write(&self, number: &str) -> Result<(), DesktopError> {
        let mut entry = FAMILY_WILD.to_be_bytes().to_vec();
        for field in [b"".as_slice(), number.as_bytes(), PROTOCOL, &self.cookie] {
            entry.extend((field.len() as u16).to_be_bytes());
            entry.extend(field);
        }
        let failed = |error: std::io::Error| {
            DesktopError::StartFailed(format!("cannot write {}: {error}", self.path.display()))
        };
        let partial = self.path.with_extension("partial");
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&partial)
            .map_err(failed)?;
        file.write_all(&entry).map_err(failed)?;
        std::fs::rename(&partial, &self.path).map_err(failed)
    }
}

impl std::fmt::Debug for Authority {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Authority")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_is_one_private_wildcard_entry_for_the_display() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let authority = Authority::create(dir.path()).unwrap();
        authority.for_display("42").unwrap();
        let bytes = std::fs::read(authority.path()).unwrap();
        let mut expected = vec![0xff, 0xff, 0, 0, 0, 2, b'4', b'2', 0, 18];
        expected.extend(PROTOCOL);
        expected.extend([0, 16]);
        expected.extend(authority.cookie);
        assert_eq!(bytes, expected);
        let mode = std::fs::metadata(authority.path())
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        let other = Authority::create(dir.path()).unwrap();
        assert_ne!(other.cookie, authority.cookie, "a new cookie each time");
    }
}
