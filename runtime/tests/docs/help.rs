//! The help block at the top of `docs/cli.md` is what `agentplex --help` prints.

use std::process::Command;

use super::check_region;
use crate::common::binary;

#[test]
fn the_cli_page_shows_what_help_prints() {
    let output = Command::new(binary())
        .arg("--help")
        .env_remove("COLUMNS")
        .output()
        .expect("running agentplex --help");
    assert!(output.status.success(), "{output:?}");
    let help = String::from_utf8(output.stdout).expect("UTF-8 help");
    check_region(
        "docs/cli.md",
        "agentplex --help",
        &format!("```text\n$ agentplex --help\n{help}```\n"),
    );
}
