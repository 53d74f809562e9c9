//! The variables of 0.2 and earlier (`SANDBOX_AGENT_*`), still read: each one set
//! whose `AGENTPLEX_*` name is a setting the command reads, and is not set itself, is
//! copied to that name before the command line is parsed, and the command says once
//! which it read. Other `SANDBOX_AGENT_*` variables (another program's, say) are left
//! alone and not mentioned.

/// The prefix of the variables of 0.2 and earlier.
const LEGACY_PREFIX: &str = "SANDBOX_AGENT_";
/// The prefix of the variables now.
const PREFIX: &str = "AGENTPLEX_";

/// The `AGENTPLEX_*` variables a command reads: every `env` of the command line's
/// arguments, in every subcommand, and the log filter read outside it.
pub fn known(command: &clap::Command) -> std::collections::BTreeSet<String> {
    fn collect(command: &clap::Command, names: &mut std::collections::BTreeSet<String>) {
        for argument in command.get_arguments() {
            if let Some(name) = argument.get_env().and_then(|name| name.to_str()) {
                names.insert(name.to_owned());
            }
        }
        for subcommand in command.get_subcommands() {
            collect(subcommand, names);
        }
    }
    let mut names = std::collections::BTreeSet::from([format!("{PREFIX}LOG")]);
    collect(command, &mut names);
    names
}

/// Copies every `SANDBOX_AGENT_X` that is set to `AGENTPLEX_X` when that is one of
/// `known` and not set itself, and answers the names copied, sorted. Must run before
/// any other thread starts (it changes the environment).
pub fn adopt(known: &std::collections::BTreeSet<String>) -> Vec<String> {
    let mut adopted: Vec<(String, std::ffi::OsString)> = std::env::vars_os()
        .filter_map(|(name, value)| {
            let suffix = name.to_str()?.strip_prefix(LEGACY_PREFIX)?.to_owned();
            let current = format!("{PREFIX}{suffix}");
            (known.contains(&current) && std::env::var_os(&current).is_none())
                .then_some((current, value))
        })
        .collect();
    adopted.sort();
    for (name, value) in &adopted {
        // Single-threaded still: nothing reads the environment meanwhile.
        std::env::set_var(name, value);
    }
    adopted
        .into_iter()
        .map(|(name, _)| format!("{LEGACY_PREFIX}{}", &name[PREFIX.len()..]))
        .collect()
}

/// The one line that says which old variables were read, if any.
pub fn deprecation(adopted: &[String]) -> Option<String> {
    if adopted.is_empty() {
        return None;
    }
    let renamed: Vec<String> = adopted
        .iter()
        .map(|old| format!("{old} -> {PREFIX}{}", &old[LEGACY_PREFIX.len()..]))
        .collect();
    Some(format!(
        "the SANDBOX_AGENT_* variables are deprecated and will stop being read; rename them: {}",
        renamed.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_known_names_are_the_command_lines_and_the_log_filter() {
        use clap::CommandFactory;
        let names = known(&crate::Cli::command());
        for name in [
            "AGENTPLEX_TOKEN",
            "AGENTPLEX_PORT",
            "AGENTPLEX_DATA_DIR",
            "AGENTPLEX_LOG",
        ] {
            assert!(names.contains(name), "{name} missing from {names:?}");
        }
        assert!(!names.contains("AGENTPLEX_BUILD_COMMIT"));
    }

    #[test]
    fn the_deprecation_line_names_each_renaming() {
        assert_eq!(deprecation(&[]), None);
        let line =
            deprecation(&["SANDBOX_AGENT_TOKEN".into(), "SANDBOX_AGENT_PORT".into()]).unwrap();
        assert!(
            line.ends_with(
                "SANDBOX_AGENT_TOKEN -> AGENTPLEX_TOKEN, SANDBOX_AGENT_PORT -> AGENTPLEX_PORT"
            ),
            "{line}"
        );
    }
}
