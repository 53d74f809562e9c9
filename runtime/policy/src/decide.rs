//! Deciding a request: every rule that matches it is weighed, the strictest
//! decision winning (the first rule of that decision is named), and a command
//! line or a path with links is decided as its strictest part.

use std::path::{Path, PathBuf};

use crate::command::simple_commands;
use crate::paths;
use crate::rules::{Decision, Pattern, Policy, Rule, ToolKind};

/// What an agent asks to do, as the policy sees it.
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    /// The kind of tool.
    pub tool: ToolKind,
    /// For `shell`: the command line.
    pub command: Option<&'a str>,
    /// For `read` and `write`: the path, absolute or relative to the session's
    /// directory.
    pub path: Option<&'a str>,
    /// For `mcp`: the tool, `server/tool`.
    pub mcp: Option<&'a str>,
}

/// Where the session is, for paths.
pub struct Context<'a> {
    /// The session's directory (absolute).
    pub directory: &'a Path,
    /// The home of the session's agent, for `~/`.
    pub home: Option<&'a Path>,
    /// The path with its links resolved, as far as it exists (the caller reads
    /// the file system; a path it cannot resolve comes back as it went).
    pub resolve: &'a dyn Fn(&Path) -> PathBuf,
}

/// What the policy decided, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// The decision.
    pub decision: Decision,
    /// The index of the rule that decided; `None` when the default did.
    pub rule: Option<usize>,
    /// What that rule was matched on, when it was a part of the request: one
    /// simple command of a command line, or the path with its links resolved.
    pub subject: Option<String>,
}

/// One thing a request is decided on.
enum Subject {
    /// A request with nothing to match a glob on.
    Bare,
    /// A simple command.
    Command(String),
    /// A path, absolute and normalized.
    Path(PathBuf),
    /// An MCP tool.
    Mcp(String),
}

impl Policy {
    /// Decides `request` for a session at `context`.
    pub fn decide(&self, request: &Request, context: &Context) -> Verdict {
        let subjects = subjects(request, context);
        let several = subjects.len() > 1;
        let mut verdict: Option<Verdict> = None;
        for subject in &subjects {
            let mut decided = self.decide_one(request.tool, subject, context);
            if several {
                decided.subject = Some(subject.text());
            }
            if verdict
                .as_ref()
                .is_none_or(|v| decided.decision > v.decision)
            {
                verdict = Some(decided);
            }
        }
        verdict.unwrap_or_else(|| self.decide_one(request.tool, &Subject::Bare, context))
    }

    /// Decides one subject: the strictest matching rule, else the default.
    fn decide_one(&self, tool: ToolKind, subject: &Subject, context: &Context) -> Verdict {
        let mut verdict = Verdict {
            decision: self.default,
            rule: None,
            subject: None,
        };
        for (index, rule) in self.rules.iter().enumerate() {
            let stricter = verdict.rule.is_none() || rule.decision > verdict.decision;
            if stricter && rule.matches(tool, subject, context) {
                verdict.decision = rule.decision;
                verdict.rule = Some(index);
            }
        }
        verdict
    }
}

impl Rule {
    fn matches(&self, tool: ToolKind, subject: &Subject, context: &Context) -> bool {
        if self.tool.is_some_and(|own| own != tool) {
            return false;
        }
        match (&self.pattern, subject) {
            (None, _) => true,
            (Some(Pattern::Command(glob)), Subject::Command(command)) => glob.is_match(command),
            (Some(Pattern::Path(glob)), Subject::Path(path)) => {
                glob.matches(path, context.directory, context.home)
            }
            (Some(Pattern::Mcp(glob)), Subject::Mcp(name)) => glob.is_match(name),
            (Some(_), _) => false,
        }
    }
}

impl Subject {
    fn text(&self) -> String {
        match self {
            Self::Bare => String::new(),
            Self::Command(text) | Self::Mcp(text) => text.clone(),
            Self::Path(path) => path.display().to_string(),
        }
    }
}

/// What `request` is decided on: its simple commands, its path as written and
/// with its links resolved, or its MCP tool.
fn subjects(request: &Request, context: &Context) -> Vec<Subject> {
    match request.tool {
        ToolKind::Shell => match request.command {
            Some(line) => simple_commands(line)
                .into_iter()
                .map(Subject::Command)
                .collect(),
            None => vec![Subject::Bare],
        },
        ToolKind::Read | ToolKind::Write => match request.path {
            Some(path) => {
                let written = paths::absolute(path, context.directory, context.home);
                let resolved = paths::normalize(&(context.resolve)(&written));
                let mut subjects = vec![Subject::Path(written.clone())];
                if resolved != written {
                    subjects.push(Subject::Path(resolved));
                }
                subjects
            }
            None => vec![Subject::Bare],
        },
        ToolKind::Mcp => match request.mcp {
            Some(name) => vec![Subject::Mcp(name.to_owned())],
            None => vec![Subject::Bare],
        },
        ToolKind::Fetch | ToolKind::Other => vec![Subject::Bare],
    }
}
