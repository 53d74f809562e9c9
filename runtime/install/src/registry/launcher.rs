//! The launcher of an installed registry agent: a shell script at the root of
//! its package folder that starts the registry's command, with the registry's
//! arguments and variables, wherever the folder ends up (it finds itself through
//! the install folder's link). The agent's session starts the launcher alone, so
//! one generic ACP adapter runs every registry agent.

use std::collections::BTreeMap;
use std::path::Path;

use crate::InstallError;

/// The launcher's file name in the package folder.
pub const FILE: &str = "agentplex-launch";

/// What the launcher starts, relative to the package folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command<'a> {
    /// A program to run the entry with (a virtual environment's Python), relative.
    pub interpreter: Option<&'a str>,
    /// The program, or the script the interpreter runs, relative.
    pub program: &'a str,
    /// The registry's arguments.
    pub args: &'a [String],
    /// The registry's variables.
    pub env: &'a BTreeMap<String, String>,
}

/// The script's text; `about` goes in its comment (agent, version, source).
pub fn script(about: &str, command: &Command<'_>) -> String {
    let mut text = format!(
        "#!/bin/sh\n# {}\n# Written by agentplex: starts the agent as the ACP registry says.\n\
         here=$(dirname \"$(readlink -f \"$0\")\")\n",
        about.replace('\n', " ")
    );
    for (name, value) in command.env {
        text.push_str(&format!("export {name}={}\n", quote(value)));
    }
    text.push_str("exec");
    if let Some(interpreter) = command.interpreter {
        text.push_str(&format!(" \"$here\"/{}", quote(interpreter)));
    }
    text.push_str(&format!(" \"$here\"/{}", quote(command.program)));
    for arg in command.args {
        text.push(' ');
        text.push_str(&quote(arg));
    }
    text.push_str(" \"$@\"\n");
    text
}

/// Writes the launcher into `root` (executable) and returns its path.
pub fn write(
    root: &Path,
    about: &str,
    command: &Command<'_>,
) -> Result<std::path::PathBuf, InstallError> {
    for name in command.env.keys() {
        if !valid_variable(name) {
            return Err(InstallError::BadEntry(format!(
                "the registry names an invalid variable {name:?}"
            )));
        }
    }
    let path = root.join(FILE);
    std::fs::write(&path, script(about, command)).map_err(|e| InstallError::io(&path, e))?;
    Ok(path)
}

/// A shell word holding `text` as is.
fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

/// A name `export` takes.
fn valid_variable(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_script_quotes_every_word_and_passes_its_own_arguments_on() {
        let env = BTreeMap::from([("NO_UPDATE".to_owned(), "it's off".to_owned())]);
        let args = vec!["--acp".to_owned(), "a b".to_owned()];
        let text = script(
            "tool 1.0 from npm:tool@1.0",
            &Command {
                interpreter: None,
                program: "package/bin/tool.js",
                args: &args,
                env: &env,
            },
        );
        assert!(
            text.starts_with("#!/bin/sh\n# tool 1.0 from npm:tool@1.0\n"),
            "{text}"
        );
        assert!(text.contains("export NO_UPDATE='it'\\''s off'\n"), "{text}");
        assert!(
            text.ends_with("exec \"$here\"/'package/bin/tool.js' '--acp' 'a b' \"$@\"\n"),
            "{text}"
        );
    }

    #[test]
    fn a_variable_that_is_no_shell_name_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let env = BTreeMap::from([("A=B; rm".to_owned(), "x".to_owned())]);
        let command = Command {
            interpreter: None,
            program: "tool",
            args: &[],
            env: &env,
        };
        assert!(write(dir.path(), "x", &command).is_err());
    }

    #[test]
    fn the_launcher_runs_its_program_from_wherever_it_is_linked() {
        let dir = tempfile::tempdir().unwrap();
        let package = dir.path().join(".tool.pkg-1");
        std::fs::create_dir_all(package.join("bin")).unwrap();
        let program = package.join("bin/tool");
        std::fs::write(&program, "#!/bin/sh\necho \"$GREETING\" \"$@\"\n").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
        let env = BTreeMap::from([("GREETING".to_owned(), "hello".to_owned())]);
        let args = vec!["--acp".to_owned()];
        let launcher = write(
            &package,
            "tool",
            &Command {
                interpreter: None,
                program: "bin/tool",
                args: &args,
                env: &env,
            },
        )
        .unwrap();
        std::fs::set_permissions(&launcher, std::fs::Permissions::from_mode(0o755)).unwrap();
        let link = dir.path().join("tool");
        std::os::unix::fs::symlink(".tool.pkg-1/agentplex-launch", &link).unwrap();
        let output = std::process::Command::new(&link)
            .arg("more")
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8_lossy(&output.stdout),
            "hello --acp more\n"
        );
    }
}
