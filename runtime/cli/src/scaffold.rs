//! `agentplex adapters new NAME --dir DIR`: a buildable adapter project
//! anywhere on disk. It is the adapter template (`examples/adapter-template`)
//! renamed, with the kit and the contract it is built against vendored under
//! `vendor/`, so it needs nothing from this repository: `cargo build --release
//! --target wasm32-wasip2` inside DIR makes the component. With `--acp COMMAND`
//! it is an adapter for an agent that speaks the Agent Client Protocol instead:
//! the kit's generic ACP session, started with COMMAND.

use std::path::{Path, PathBuf};

use super::error::LocalError;

include!(concat!(env!("OUT_DIR"), "/scaffold_files.rs"));

/// The files of an embedded bundle (a compressed tar archive, see the build
/// script), by path.
fn bundle(compressed: &[u8]) -> Result<Vec<(String, Vec<u8>)>, LocalError> {
    use std::io::Read;
    let damaged = |error: std::io::Error| LocalError::Damaged(error.to_string());
    let bytes = agentplex_host::artifact::decompress(compressed)
        .map_err(|error| LocalError::Damaged(error.to_string()))?;
    let mut archive = tar::Archive::new(bytes.as_slice());
    let mut files = Vec::new();
    for entry in archive.entries().map_err(damaged)? {
        let mut entry = entry.map_err(damaged)?;
        let path = entry
            .path()
            .map_err(damaged)?
            .to_string_lossy()
            .into_owned();
        let mut contents = Vec::new();
        entry.read_to_end(&mut contents).map_err(damaged)?;
        files.push((path, contents));
    }
    Ok(files)
}

/// Where the kit goes inside the project.
const KIT_DIR: &str = "vendor/sandbox-agent-adapter-kit";
/// Where the fuzzing driver of the kit's `testing` feature goes, beside the kit.
const FUZZ_DIR: &str = "vendor/agentplex-fuzz";
/// The contract the embedded kit is built against.
const CONTRACT: &str = "v0.5.0";

/// What was written, for the CLI to report.
#[derive(Debug)]
pub struct Scaffolded {
    /// The project folder.
    pub dir: PathBuf,
    /// The cargo package (`my-agent-adapter`).
    pub package: String,
    /// Where `cargo build --release --target wasm32-wasip2` puts the component,
    /// relative to the project folder.
    pub component: String,
}

/// Writes a new adapter project for agent `name` into `dir` (which must not exist,
/// or be empty): the template, or with `acp` (the agent's command line) an ACP
/// adapter.
pub fn scaffold(name: &str, dir: &Path, acp: Option<&str>) -> Result<Scaffolded, LocalError> {
    check_name(name)?;
    let acp = acp.map(command_words).transpose()?;
    check_empty(dir)?;
    let package = format!("{name}-adapter");
    let library = package.replace('-', "_");
    let component = format!("target/wasm32-wasip2/release/{library}.wasm");
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    for (path, bytes) in bundle(TEMPLATE_FILES)? {
        // An ACP adapter has its own source and no line-agent transcripts.
        if acp.is_some() && path != "Cargo.lock" {
            continue;
        }
        let text = String::from_utf8_lossy(&bytes);
        let text = match path.as_str() {
            "Cargo.lock" => text.replacen(
                "name = \"adapter-template\"",
                &format!("name = \"{package}\""),
                1,
            ),
            "src/lib.rs" => text
                .replacen(
                    "pub const AGENT_ID: &str = \"template\";",
                    &format!("pub const AGENT_ID: &str = \"{name}\";"),
                    1,
                )
                .replacen("\"Template (line echo)\"", &format!("\"{name}\""), 1),
            _ => text.replace("adapter_template.wasm", &format!("{library}.wasm")),
        };
        files.push((path.clone(), text.into_bytes()));
    }
    files.push((
        "Cargo.toml".into(),
        project_manifest(&package, name).into_bytes(),
    ));
    files.push((
        "README.md".into(),
        readme(name, &component, acp.as_deref()).into_bytes(),
    ));
    if let Some(command) = &acp {
        files.push(("src/lib.rs".into(), acp_source(name, command).into_bytes()));
    }
    files.push((".gitignore".into(), b"/target\n".to_vec()));
    for (path, bytes) in bundle(KIT_FILES)? {
        let bytes = match path.as_str() {
            "Cargo.toml" => vendored_manifest(&String::from_utf8_lossy(&bytes))?
                .replace(
                    "path = \"../../testing/fuzz\"",
                    "path = \"../agentplex-fuzz\"",
                )
                .into_bytes(),
            "src/bindings.rs" => String::from_utf8_lossy(&bytes)
                .replace(
                    &format!("\"../../wit/{CONTRACT}\""),
                    &format!("\"wit/{CONTRACT}\""),
                )
                .into_bytes(),
            _ => bytes,
        };
        files.push((format!("{KIT_DIR}/{path}"), bytes));
    }
    for (path, bytes) in bundle(FUZZ_FILES)? {
        let bytes = match path.as_str() {
            "Cargo.toml" => vendored_manifest(&String::from_utf8_lossy(&bytes))?.into_bytes(),
            _ => bytes,
        };
        files.push((format!("{FUZZ_DIR}/{path}"), bytes));
    }
    for (path, bytes) in bundle(WIT_FILES)? {
        files.push((format!("{KIT_DIR}/wit/{CONTRACT}/{path}"), bytes));
    }
    for (path, bytes) in &files {
        let target = dir.join(path);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(|source| LocalError::MakeDir {
                path: parent.to_owned(),
                source,
            })?;
        }
        std::fs::write(&target, bytes).map_err(|source| LocalError::Write {
            path: target.clone(),
            source,
        })?;
    }
    Ok(Scaffolded {
        dir: dir.to_owned(),
        package,
        component,
    })
}

/// An agent id the daemon accepts that also makes a crate name: `[a-z0-9_-]`,
/// starting with a letter, at most 64 characters.
fn check_name(name: &str) -> Result<(), LocalError> {
    let valid = name.len() <= 64
        && name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_');
    if valid {
        Ok(())
    } else {
        Err(LocalError::InvalidName(name.to_owned()))
    }
}

/// A project folder that does not exist yet, or is empty.
fn check_empty(dir: &Path) -> Result<(), LocalError> {
    match std::fs::read_dir(dir) {
        Ok(mut entries) => {
            if entries.next().is_some() {
                return Err(LocalError::NotEmpty(dir.to_owned()));
            }
            Ok(())
        }
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(source) => Err(LocalError::Unusable {
            path: dir.to_owned(),
            source,
        }),
    }
}

/// The project's `Cargo.toml`: a workspace of its own, the vendored kit.
fn project_manifest(package: &str, name: &str) -> String {
    format!(
        r#"# The agentplex adapter for `{name}`, written by `agentplex adapters new`.
# Build the component:   cargo build --release --target wasm32-wasip2
# Check it:              agentplex adapters validate target/wasm32-wasip2/release/{library}.wasm
# Test it:               cargo test   (or: agentplex adapters test .)
[workspace]

[package]
name = "{package}"
description = "agentplex adapter for {name}"
version = "0.1.0"
edition = "2021"
publish = false

[lib]
# cdylib: the WebAssembly component; rlib: native tests of the same code.
crate-type = ["cdylib", "rlib"]

[dependencies]
# The kit carries the contract's bindings and helpers; vendored with the contract
# (its wit/ folder) so the project builds on its own.
sandbox-agent-adapter-kit = {{ path = "{KIT_DIR}" }}
serde = {{ version = "1", features = ["derive"] }}
serde_json = "1"

[profile.release]
# The daemon loads the component for every session: keep it small.
opt-level = "s"
lto = true
codegen-units = 1
panic = "abort"
strip = true
"#,
        library = package.replace('-', "_"),
    )
}

/// A vendored crate's manifest (the kit's, the fuzzing driver's) with the
/// workspace's values written in (they inherit their version, edition, license
/// and dependency versions from a workspace; `adapters/`'s has them all).
fn vendored_manifest(kit: &str) -> Result<String, LocalError> {
    let workspace = bundle(KIT_WORKSPACE)?
        .into_iter()
        .find(|(path, _)| path == "Cargo.toml")
        .map(|(_, bytes)| String::from_utf8_lossy(&bytes).into_owned())
        .ok_or(LocalError::NoWorkspaceManifest)?;
    let mut out = String::new();
    for line in kit.lines() {
        let Some(key) = line.trim().strip_suffix(".workspace = true") else {
            out.push_str(line);
            out.push('\n');
            continue;
        };
        let value = workspace
            .lines()
            .find_map(|l| {
                let (k, v) = l.split_once('=')?;
                (k.trim() == key).then(|| v.trim().to_owned())
            })
            .ok_or_else(|| LocalError::WorkspaceLacks(key.to_owned()))?;
        out.push_str(&format!("{key} = {value}\n"));
    }
    Ok(out)
}

/// The words of an agent's command line (`my-agent --acp`); quotes group words.
fn command_words(command: &str) -> Result<Vec<String>, LocalError> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quote = None;
    let mut started = false;
    for c in command.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                started = true;
            }
            (None, c) if c.is_whitespace() => {
                if started || !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
                started = false;
            }
            (None, c) => {
                word.push(c);
                started = true;
            }
        }
    }
    if quote.is_some() {
        return Err(LocalError::UnclosedQuote(command.to_owned()));
    }
    if started {
        words.push(word);
    }
    if words.first().is_none_or(|program| program.is_empty()) {
        return Err(LocalError::NoAcpCommand);
    }
    Ok(words)
}

/// `src/lib.rs` of an ACP adapter for `name`, started with `command`.
fn acp_source(name: &str, command: &[String]) -> String {
    let words: Vec<String> = command.iter().map(|word| format!("{word:?}")).collect();
    let program = Path::new(&command[0])
        .file_name()
        .map_or(command[0].clone(), |name| {
            name.to_string_lossy().into_owned()
        });
    format!(
        r#"//! The agentplex adapter for `{name}`, an agent that speaks the Agent Client
//! Protocol on stdio. The session is the kit's generic ACP session
//! (`sandbox_agent_adapter_kit::acp`); this file says how to start the agent and
//! what it can do. Written by `agentplex adapters new --acp`: add the agent's
//! install recipe, credentials and models as it needs them (see the kit's docs).

use sandbox_agent_adapter_kit::acp::{{AcpAgent, AcpSession}};
use sandbox_agent_adapter_kit::prelude::*;

/// The agent id clients use.
pub const AGENT_ID: &str = "{name}";

/// How the agent is started: the program, then the arguments that make it speak
/// ACP on stdin and stdout.
const COMMAND: &[&str] = &[{words}];

/// The adapter.
pub struct Agent;

impl AcpAgent for Agent {{
    const NAME: &'static str = "{name}";
    const PROCESS: &'static str = "agent";

    /// `COMMAND`, with the installed binary's path as the program when the daemon
    /// found one.
    fn spawn(config: &SessionConfig, process_id: &str) -> SpawnRequest {{
        let mut argv: Vec<String> = COMMAND.iter().map(|word| (*word).to_owned()).collect();
        if let Some(binary) = &config.agent_binary {{
            argv[0] = binary.clone();
        }}
        SpawnRequest::command(process_id, argv)
    }}
}}

impl Adapter for Agent {{
    type Session = AcpSession<Agent>;

    fn info() -> AdapterInfo {{
        AdapterInfo {{
            builtin: false,
            ..AdapterInfo::builtin(AGENT_ID, "{name}", env!("CARGO_PKG_VERSION"), CAPABILITIES)
        }}
    }}

    /// The daemon looks for `{program}` in its install folder, then on `PATH`.
    fn install_plan(_target: Platform, _version: Option<String>) -> Option<InstallRecipe> {{
        Some(InstallRecipe {{
            binary_name: "{program}".to_owned(),
            latest_version_url: None,
            sources: Vec::new(),
            npm_package: None,
            npm_binary_path: None,
        }})
    }}
}}

/// What the generic ACP session reports for an agent that uses what ACP offers;
/// remove what your agent does not do.
const CAPABILITIES: Capabilities = Capabilities {{
    permissions: true,
    tool_calls: true,
    tool_results: true,
    error_events: true,
    reasoning: true,
    command_execution: true,
    file_changes: true,
    streaming_deltas: true,
    resume: true,
    cancel: true,
    session_lifecycle: false,
    ..Capabilities::TEXT
}};

sandbox_agent_adapter_kit::export!(Agent);

#[cfg(test)]
mod tests {{
    use sandbox_agent_adapter_kit::transcript::render;

    use super::*;

    #[test]
    fn a_session_starts_the_agent_with_its_command() {{
        let config = SessionConfig {{
            session_id: "s1".into(),
            agent_mode: "build".into(),
            permission_mode: "default".into(),
            model: None,
            variant: None,
            directory: "/workspace".into(),
            agent_binary: None,
            env: Vec::new(),
            resume_native_session_id: None,
            mcp_servers: Vec::new(),
            skills: Vec::new(),
            scratch_dir: "/tmp/scratch".into(),
            model_endpoints: Vec::new(),
            policy: None,
        }};
        let started = render(&AcpSession::<Agent>::new(config).start());
        assert!(started[1].starts_with("spawn agent_1"), "{{started:?}}");
    }}
}}
"#,
        words = words.join(", ")
    )
}

fn readme(name: &str, component: &str, acp: Option<&[String]>) -> String {
    let start = match acp {
        Some(command) => format!(
            "It drives an agent that speaks the Agent Client Protocol, started as `{}`,\n\
             with the kit's generic ACP session. Adjust `src/lib.rs` (capabilities, install\n\
             recipe, credentials) to your agent.",
            command.join(" ")
        ),
        None => "It starts as the adapter template: the agent is a program that reads the \
                 user's\nmessage on stdin and prints its answer line by line (`cat` by \
                 default). Teach it\nyour agent in `src/lib.rs` (facts, install recipe, \
                 credentials) and\n`src/session.rs` (the session state machine)."
            .to_owned(),
    };
    format!(
        r#"# `{name}`: an agentplex adapter

Written by `agentplex adapters new`. {start}


```bash
rustup target add wasm32-wasip2                  # once
cargo build --release --target wasm32-wasip2     # -> {component}
agentplex adapters validate {component}
cargo test                                       # unit tests (and transcripts/, when there is one)
agentplex adapters test .                    # builds, validates and replays in one go
```

Run it in a daemon: copy the component into a folder and start `agentplex server
--adapters-dir <folder>`; a daemon already running with that folder loads new and changed
components by itself (or on `POST /v1/adapters/reload`).

`vendor/sandbox-agent-adapter-kit` is the adapter kit with the contract it implements
(`wit/`), copied from the `agentplex` that wrote this project; the contract and the kit
are documented there (`src/lib.rs`, `wit/{CONTRACT}/*.wit`).
"#
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_folders_are_checked() {
        assert!(check_name("my-agent").is_ok());
        for bad in ["", "My", "1st", "a b", "x/y", &"a".repeat(65)] {
            assert!(check_name(bad).is_err(), "{bad:?}");
        }
        let dir = tempfile::tempdir().unwrap();
        assert!(check_empty(dir.path()).is_ok());
        assert!(check_empty(&dir.path().join("new")).is_ok());
        std::fs::write(dir.path().join("x"), "").unwrap();
        assert!(matches!(
            check_empty(dir.path()),
            Err(LocalError::NotEmpty(path)) if path == dir.path()
        ));
    }

    #[test]
    fn acp_commands_are_split_into_words() {
        assert_eq!(
            command_words("node '/opt/my agent/cli.js' --acp").unwrap(),
            ["node", "/opt/my agent/cli.js", "--acp"]
        );
        assert!(matches!(command_words("  "), Err(LocalError::NoAcpCommand)));
        assert!(matches!(
            command_words("agent 'open"),
            Err(LocalError::UnclosedQuote(_))
        ));
    }

    #[test]
    fn the_kit_manifest_stands_alone() {
        let manifest = bundle(KIT_FILES)
            .unwrap()
            .into_iter()
            .find(|(path, _)| path == "Cargo.toml")
            .map(|(_, bytes)| String::from_utf8_lossy(&bytes).into_owned())
            .unwrap();
        let standalone = vendored_manifest(&manifest).unwrap();
        assert!(!standalone.contains(".workspace"), "{standalone}");
        assert!(standalone.contains("wit-bindgen = \""), "{standalone}");
    }
}
