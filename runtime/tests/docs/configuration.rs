//! `docs/configuration.md`: every flag and variable of every subcommand, rendered
//! from the clap definitions, and every `AGENTPLEX_*` variable the code reads named
//! on the page.

use clap::{Arg, ArgAction, Command, CommandFactory};

use super::{cell, check_region, repo};

const PAGE: &str = "docs/configuration.md";

#[test]
fn the_configuration_page_lists_every_flag_of_the_command_line() {
    check_region(PAGE, "agentplex flags", &render());
}

#[test]
fn every_variable_the_daemon_reads_is_on_the_configuration_page() {
    let page = std::fs::read_to_string(repo().join(PAGE)).unwrap();
    let mut read = Vec::new();
    // The daemon's crates (runtime/ and each crate under it) and the host.
    let runtime = repo().join("runtime");
    let mut crates = vec![runtime.clone()];
    for entry in std::fs::read_dir(&runtime).unwrap() {
        let dir = entry.unwrap().path();
        if dir.join("Cargo.toml").is_file() {
            crates.push(dir);
        }
    }
    for dir in crates {
        variables(&dir.join("src"), &mut read);
        variables(&dir.join("build.rs"), &mut read);
    }
    variables(&repo().join("host-api/src"), &mut read);
    read.sort();
    read.dedup();
    assert!(read.len() > 30, "only {read:?} found");
    let missing: Vec<_> = read
        .iter()
        .filter(|name| !page.contains(&format!("`{name}`")))
        .collect();
    assert!(missing.is_empty(), "{PAGE} does not name {missing:?}");
}

/// The `"AGENTPLEX_..."` string literals of the Rust files under `path`.
fn variables(path: &std::path::Path, found: &mut Vec<String>) {
    if path.is_dir() {
        for entry in std::fs::read_dir(path).unwrap() {
            variables(&entry.unwrap().path(), found);
        }
        return;
    }
    if !path.is_file() || path.extension().is_none_or(|e| e != "rs") {
        return;
    }
    let text = std::fs::read_to_string(path).unwrap();
    for (at, _) in text.match_indices("\"AGENTPLEX_") {
        let name: String = text[at + 1..]
            .chars()
            .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == '_')
            .collect();
        // The bare prefix (a constant of the code that renames the old variables).
        if name.len() > "AGENTPLEX_".len() {
            found.push(name);
        }
    }
}

/// The page's generated region: the server's flags, the flags every client command
/// takes, then each other command's own arguments.
fn render() -> String {
    let mut cli = agentplex_cli::Cli::command();
    cli.build();
    let mut out = String::new();
    let server = cli.find_subcommand("server").expect("a server subcommand");
    out.push_str("## `agentplex server`\n\n");
    out.push_str(&about(server));
    out.push_str(&table(&arguments(server, &[])));

    let mut leaves = Vec::new();
    for command in cli.get_subcommands().filter(|c| c.get_name() != "server") {
        collect_leaves(command, "agentplex", &mut leaves);
    }
    let clients: Vec<_> = leaves
        .iter()
        .filter(|(_, c)| c.get_arguments().any(|a| a.get_id() == "endpoint"))
        .collect();
    let shared: Vec<String> = clients[0]
        .1
        .get_arguments()
        .filter(|arg| {
            clients
                .iter()
                .all(|(_, c)| c.get_arguments().any(|a| a.get_id() == arg.get_id()))
        })
        .map(|arg| arg.get_id().to_string())
        .collect();
    out.push_str("## Every client command\n\n");
    out.push_str(
        "The commands that talk to a running daemon (each one marked *client* below) \
         all take these:\n\n",
    );
    out.push_str(&table(
        &arguments(clients[0].1, &[])
            .into_iter()
            .filter(|row| shared.contains(&row.id))
            .collect::<Vec<_>>(),
    ));
    out.push_str("## Each command\n\n");
    for (path, command) in &leaves {
        let client = clients.iter().any(|(p, _)| p == path);
        out.push_str(&format!("### `{path}`\n\n"));
        if client {
            out.push_str("*Client.* ");
        }
        out.push_str(&about(command));
        let own = arguments(command, if client { &shared } else { &[] });
        if own.is_empty() {
            out.push_str("No arguments of its own.\n\n");
        } else {
            out.push_str(&table(&own));
        }
    }
    out
}

/// Every command without subcommands under `command`, with its full name.
fn collect_leaves<'a>(command: &'a Command, parent: &str, leaves: &mut Vec<(String, &'a Command)>) {
    if command.get_name() == "help" || command.is_hide_set() {
        return;
    }
    let path = format!("{parent} {}", command.get_name());
    if command.has_subcommands() {
        for sub in command.get_subcommands() {
            collect_leaves(sub, &path, leaves);
        }
    } else {
        leaves.push((path, command));
    }
}

/// A command's description, as a paragraph.
fn about(command: &Command) -> String {
    let text = command
        .get_long_about()
        .or(command.get_about())
        .map(|about| about.to_string())
        .unwrap_or_default();
    format!("{}\n\n", sentence(&cell(&text)))
}

/// `text` ending with a full stop.
fn sentence(text: &str) -> String {
    if text.is_empty() || text.ends_with('.') || text.ends_with(".)") {
        text.to_owned()
    } else {
        format!("{text}.")
    }
}

/// One argument as the table shows it.
struct Row {
    id: String,
    usage: String,
    variable: String,
    default: String,
    meaning: String,
}

/// The arguments of `command` (without `--help`, `--version`, hidden ones and those
/// in `skip`), in the order `--help` shows them: positionals first.
fn arguments(command: &Command, skip: &[String]) -> Vec<Row> {
    let mut args: Vec<&Arg> = command
        .get_arguments()
        .filter(|arg| !arg.is_hide_set())
        .filter(|arg| {
            !matches!(
                arg.get_action(),
                ArgAction::Help | ArgAction::HelpShort | ArgAction::HelpLong | ArgAction::Version
            )
        })
        .filter(|arg| !skip.iter().any(|id| id == arg.get_id().as_str()))
        .collect();
    args.sort_by_key(|arg| !arg.is_positional());
    args.into_iter().map(row).collect()
}

fn row(arg: &Arg) -> Row {
    let help = arg
        .get_long_help()
        .or(arg.get_help())
        .map(|help| help.to_string())
        .unwrap_or_default();
    let (mut meaning, stated_default) = split_default(&cell(&help));
    let takes_value = arg.get_action().takes_values();
    let values: Vec<String> = arg
        .get_possible_values()
        .iter()
        .filter(|value| !value.is_hide_set())
        .map(|value| format!("`{}`", value.get_name()))
        .collect();
    if takes_value && !values.is_empty() {
        meaning = format!("{} One of {}.", sentence(&meaning), values.join(", "));
    }
    let repeatable = matches!(arg.get_action(), ArgAction::Append) && !arg.is_positional();
    if repeatable && !meaning.to_lowercase().contains("repeatable") {
        meaning = format!("{} Repeatable.", sentence(&meaning));
    }
    let defaults: Vec<String> = arg
        .get_default_values()
        .iter()
        .map(|value| format!("`{}`", value.to_string_lossy()))
        .collect();
    let default = if matches!(arg.get_action(), ArgAction::SetTrue) {
        "off".to_owned()
    } else if defaults.is_empty() {
        stated_default.map(|d| cell(&d)).unwrap_or_default()
    } else {
        defaults.join(", ")
    };
    Row {
        id: arg.get_id().to_string(),
        usage: usage(arg),
        variable: arg
            .get_env()
            .map(|name| format!("`{}`", name.to_string_lossy()))
            .unwrap_or_default(),
        default,
        meaning: sentence(&meaning),
    }
}

/// How the argument is written: `--name VALUE`, `--flag`, `NAME`, `[NAME]`, `NAME...`.
fn usage(arg: &Arg) -> String {
    let value = arg
        .get_value_names()
        .and_then(|names| names.first().map(|n| n.to_string()))
        .unwrap_or_else(|| arg.get_id().as_str().to_uppercase());
    let many = arg.get_num_args().is_some_and(|n| n.max_values() > 1);
    let value = if many { format!("{value}...") } else { value };
    if arg.is_positional() {
        return if arg.is_required_set() {
            format!("`{value}`")
        } else {
            format!("`[{value}]`")
        };
    }
    let long = arg.get_long().map(|l| format!("--{l}")).unwrap_or_default();
    let mut name = match arg.get_short() {
        Some(short) if long.is_empty() => format!("-{short}"),
        Some(short) => format!("-{short}, {long}"),
        None => long,
    };
    for alias in arg.get_visible_aliases().into_iter().flatten() {
        name.push_str(&format!(", --{alias}"));
    }
    if arg.get_action().takes_values() {
        format!("`{name} {value}`")
    } else {
        format!("`{name}`")
    }
}

/// A help text without its `[default: ...]`, and that default.
fn split_default(help: &str) -> (String, Option<String>) {
    let Some(start) = help.find("[default: ") else {
        return (help.to_owned(), None);
    };
    let inner = start + "[default: ".len();
    let mut depth = 1;
    let end = help[inner..]
        .char_indices()
        .find(|&(_, c)| {
            depth += match c {
                '[' => 1,
                ']' => -1,
                _ => 0,
            };
            depth == 0
        })
        .map(|(i, _)| inner + i)
        .unwrap_or(help.len());
    let default = help[inner..end].to_owned();
    let rest = format!(
        "{}{}",
        help[..start].trim_end(),
        &help[(end + 1).min(help.len())..]
    );
    (rest.trim().to_owned(), Some(default))
}

fn table(rows: &[Row]) -> String {
    let mut out = String::from("| argument | variable | default | meaning |\n|---|---|---|---|\n");
    for row in rows {
        out.push_str(&format!(
            "| {} | {} | {} | {} |\n",
            row.usage, row.variable, row.default, row.meaning
        ));
    }
    out.push('\n');
    out
}

#[test]
fn a_stated_default_is_taken_out_of_the_help() {
    assert_eq!(
        split_default("Where it is [default: <data-dir>/bin]."),
        ("Where it is.".to_owned(), Some("<data-dir>/bin".to_owned()))
    );
    assert_eq!(split_default("Plain help"), ("Plain help".to_owned(), None));
    assert_eq!(sentence("Run it"), "Run it.");
}
