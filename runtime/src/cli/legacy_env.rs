//! The variables of 0.2 and earlier (`SANDBOX_AGENT_*`), still read: each one set
//! whose `AGENTPLEX_*` name is not is copied to that name before the command line is
//! parsed, and the command says once which it read.

/// The prefix of the variables of 0.2 and earlier.
const LEGACY_PREFIX: &str = "SANDBOX_AGENT_";
/// The prefix of the variables now.
const PREFIX: &str = "AGENTPLEX_";

/// Copies every `SANDBOX_AGENT_X` that is set to `AGENTPLEX_X` unless that one is set
/// too, and answers the names copied, sorted. Must run before any other thread
/// starts (it changes the environment).
pub fn adopt() -> Vec<String> {
    let mut adopted: Vec<(String, std::ffi::OsString)> = std::env::vars_os()
        .filter_map(|(name, value)| {
            let suffix = name.to_str()?.strip_prefix(LEGACY_PREFIX)?.to_owned();
            let current = format!("{PREFIX}{suffix}");
            std::env::var_os(&current)
                .is_none()
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
