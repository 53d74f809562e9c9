//! Which flags the installed `amp` understands, read from its `--help`.
//!
//! Amp renames and adds flags between releases and refuses unknown ones
//! (`Error: error: unknown option '--print'`), so each session runs `amp --help` once
//! (the probe) and builds every launch from what it lists:
//!
//! | need | newer CLIs | older CLIs (the flags Claude Code-like launchers used) | when `--help` lists neither |
//! |---|---|---|---|
//! | one turn, then exit | `--execute` | `--print` | `--execute` |
//! | stream-json output | `--stream-json`, or `--stream-json-thinking` (adds thinking blocks) when listed | `--output-format stream-json` | `--stream-json` |
//! | continue a thread | `threads continue <id>` (subcommand) | `--continue <id>` | `threads continue <id>` |
//! | skip permission prompts | `--dangerously-allow-all` | `--dangerously-skip-permissions` | `--dangerously-allow-all` |
//! | choose the model | `--mode <mode>` | `--model <model>` | `--mode` |
//!
//! Recent CLIs hide `--dangerously-allow-all` from `--help` but still accept it, so it
//! is used unless only the old name is listed.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

/// What the probe's output has shown so far, one line at a time.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct HelpScan {
    /// Long options mentioned anywhere (`--stream-json`).
    options: BTreeSet<String>,
    /// A `threads` command was listed.
    threads: bool,
    /// A `continue` command was listed after `threads`.
    threads_continue: bool,
}

impl HelpScan {
    /// Takes in one line of `amp --help` (stdout or stderr).
    pub fn line(&mut self, line: &str) {
        let first = line.split_whitespace().next().unwrap_or("");
        if first == "threads" {
            self.threads = true;
        } else if first == "continue" && self.threads {
            self.threads_continue = true;
        }
        for word in line.split_whitespace() {
            let Some(name) = word.strip_prefix("--") else {
                continue;
            };
            let name: String = name
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                .collect();
            if !name.is_empty() {
                self.options.insert(name);
            }
        }
    }

    /// True when `--name` was listed.
    fn has(&self, name: &str) -> bool {
        self.options.contains(name)
    }

    /// The launch flags for what was listed.
    pub fn flags(&self) -> Flags {
        let execute = if !self.has("execute") && self.has("print") {
            "--print"
        } else {
            "--execute"
        };
        let stream: &[&str] = if self.has("stream-json-thinking") {
            &["--stream-json-thinking"]
        } else if !self.has("stream-json") && self.has("output-format") {
            &["--output-format", "stream-json"]
        } else {
            &["--stream-json"]
        };
        let resume = if !self.threads_continue && self.has("continue") {
            Resume::Flag
        } else {
            Resume::ThreadsContinue
        };
        let bypass =
            if !self.has("dangerously-allow-all") && self.has("dangerously-skip-permissions") {
                "--dangerously-skip-permissions"
            } else {
                "--dangerously-allow-all"
            };
        let model = if !self.has("mode") && self.has("model") {
            "--model"
        } else {
            "--mode"
        };
        Flags {
            execute: execute.to_owned(),
            stream: stream.iter().map(|s| (*s).to_owned()).collect(),
            resume,
            bypass: bypass.to_owned(),
            model: model.to_owned(),
        }
    }
}

/// How a launch continues an existing thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum Resume {
    /// `amp threads continue <id> ...`.
    ThreadsContinue,
    /// `amp ... --continue <id>`.
    Flag,
}

/// The flags a launch uses, chosen from the probe.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Flags {
    /// Execute mode: one turn, then exit.
    pub execute: String,
    /// Stream-json output (one or two arguments).
    pub stream: Vec<String>,
    /// How to continue a thread.
    pub resume: Resume,
    /// No permission prompts (permission mode `bypass`).
    pub bypass: String,
    /// The flag that takes the session's model.
    pub model: String,
}
