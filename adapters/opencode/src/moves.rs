//! Moving an OpenCode session to another sandbox with OpenCode's own commands:
//! `opencode export <id>` prints it as JSON where it is, `opencode import <file>`
//! takes that JSON in where it goes (run in the new working directory, it files
//! the session under that directory's project and keeps every id).

use sandbox_agent_adapter_kit::native_session::FILE_PLACEHOLDER;
use sandbox_agent_adapter_kit::prelude::*;

/// The name of the export in the archive.
const EXPORT: &str = "session.json";

/// OpenCode's sessions, moved by command.
pub(crate) const SESSIONS: NativeSessions = NativeSessions {
    files,
    relocate,
    import: Some(import),
    before_resume: false,
};

/// The session as `opencode export` prints it.
fn files(native_session_id: &str, _at: &Place) -> Vec<NativeSource> {
    vec![NativeSource::Output(CommandOutput {
        name: EXPORT.to_owned(),
        command: NativeCommand {
            argv: vec!["opencode".into(), "export".into(), native_session_id.into()],
        },
    })]
}

/// No file of OpenCode's is copied: only the export moves.
fn relocate(
    path: &str,
    _contents: Vec<u8>,
    _from: &Place,
    _to: &Place,
) -> Result<MovedFile, String> {
    Err(format!(
        "{path} is not a file OpenCode's sessions are moved with"
    ))
}

/// `opencode import` with the export, in the new working directory.
fn import(name: &str, _from: &Place, _to: &Place) -> Result<NativeCommand, String> {
    if name != EXPORT {
        return Err(format!("{name} is not OpenCode's session export"));
    }
    Ok(NativeCommand {
        argv: vec!["opencode".into(), "import".into(), FILE_PLACEHOLDER.into()],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place(home: &str, directory: &str) -> Place {
        Place {
            home: home.into(),
            directory: directory.into(),
            env: Vec::new(),
        }
    }

    #[test]
    fn a_session_leaves_by_opencode_export_and_arrives_by_opencode_import() {
        let (from, to) = (place("/home/a", "/w/one"), place("/root", "/w/two"));
        let sources = files("ses_1", &from);
        let [NativeSource::Output(output)] = sources.as_slice() else {
            panic!("{sources:?}");
        };
        assert_eq!(output.command.argv, ["opencode", "export", "ses_1"]);
        let landing = SESSIONS
            .land(&output.name, b"{}".to_vec(), &from, &to)
            .unwrap();
        let Landing::Command(command) = landing else {
            panic!("{landing:?}");
        };
        assert_eq!(command.argv, ["opencode", "import", "{file}"]);
        assert!(SESSIONS
            .land(
                "/home/a/.local/share/opencode/opencode.db",
                Vec::new(),
                &from,
                &to
            )
            .is_err());
        assert!(SESSIONS.land("other.json", Vec::new(), &from, &to).is_err());
    }
}
