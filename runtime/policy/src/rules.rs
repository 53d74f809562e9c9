//! A policy's rules, read from JSON and checked: every fault is named by its
//! field (`rules[2].command`), and a glob that could never match is refused.

use globset::{GlobBuilder, GlobMatcher};
use serde_json::{Map, Value};

use crate::error::PolicyError;
use crate::paths;

/// How long an `ask` waits for the client before it is denied, unless the
/// policy says (`askTimeoutSecs`).
pub const DEFAULT_ASK_TIMEOUT_SECS: u64 = 300;
/// The longest wait a policy may give an `ask`: a day.
const MAX_ASK_TIMEOUT_SECS: u64 = 86_400;
/// Most rules a policy holds.
const MAX_RULES: usize = 1_000;

/// What a policy decides of a request.
///
/// Ordered from the most lenient to the strictest, so the strictest of several
/// is their maximum.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Decision {
    /// Answered yes at once.
    Allow,
    /// Left to the client.
    Ask,
    /// Answered no at once.
    Deny,
}

impl Decision {
    /// Every decision, as policies name them.
    const ALL: [(Self, &'static str); 3] = [
        (Self::Allow, "allow"),
        (Self::Ask, "ask"),
        (Self::Deny, "deny"),
    ];

    /// The name a policy gives it.
    pub fn as_str(self) -> &'static str {
        name_in(&Self::ALL, self)
    }

    fn parse(name: &str) -> Option<Self> {
        named_in(&Self::ALL, name)
    }
}

/// The kind of tool a request is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ToolKind {
    /// A command line run by a shell.
    Shell,
    /// A file read.
    Read,
    /// A file written, created, edited or deleted.
    Write,
    /// A fetch from the network.
    Fetch,
    /// A tool of an MCP server.
    Mcp,
    /// Anything else.
    Other,
}

impl ToolKind {
    /// Every kind, as policies name them.
    pub const ALL: [(Self, &'static str); 6] = [
        (Self::Shell, "shell"),
        (Self::Read, "read"),
        (Self::Write, "write"),
        (Self::Fetch, "fetch"),
        (Self::Mcp, "mcp"),
        (Self::Other, "other"),
    ];

    /// The name a policy gives it.
    pub fn as_str(self) -> &'static str {
        name_in(&Self::ALL, self)
    }

    /// The kind a policy names `name`.
    pub fn parse(name: &str) -> Option<Self> {
        named_in(&Self::ALL, name)
    }

    /// The glob field a request of this kind can be matched on.
    fn field(self) -> Option<&'static str> {
        match self {
            Self::Shell => Some("command"),
            Self::Read | Self::Write => Some("path"),
            Self::Mcp => Some("mcp"),
            Self::Fetch | Self::Other => None,
        }
    }
}

/// A checked policy, ready to decide requests.
#[derive(Debug, Clone)]
pub struct Policy {
    pub(crate) rules: Vec<Rule>,
    pub(crate) default: Decision,
    ask_timeout_secs: u64,
    document: Value,
}

/// One rule.
#[derive(Debug, Clone)]
pub(crate) struct Rule {
    pub tool: Option<ToolKind>,
    pub pattern: Option<Pattern>,
    pub decision: Decision,
}

/// What a rule's glob is matched against.
#[derive(Debug, Clone)]
pub(crate) enum Pattern {
    /// A simple command of a command line.
    Command(GlobMatcher),
    /// A path.
    Path(paths::PathGlob),
    /// An MCP tool, `server/tool`.
    Mcp(GlobMatcher),
}

impl Policy {
    /// Reads a policy from JSON text (a `--policy` file): a syntax error says its
    /// line and column.
    pub fn from_json(text: &str) -> Result<Self, PolicyError> {
        let value: Value = serde_json::from_str(text).map_err(|error| PolicyError::Syntax {
            line: error.line(),
            column: error.column(),
            reason: reason_of(&error),
        })?;
        Self::from_value(&value)
    }

    /// Reads a policy from its JSON value (a request's `policy`).
    pub fn from_value(value: &Value) -> Result<Self, PolicyError> {
        let object = value
            .as_object()
            .ok_or_else(|| PolicyError::invalid("policy", "is not an object"))?;
        only_fields(object, "", &["rules", "default", "askTimeoutSecs"])?;
        let default = match object.get("default") {
            None => Decision::Ask,
            Some(value) => decision(value, "default")?,
        };
        let ask_timeout_secs = match object.get("askTimeoutSecs") {
            None => DEFAULT_ASK_TIMEOUT_SECS,
            Some(value) => value
                .as_u64()
                .filter(|secs| (1..=MAX_ASK_TIMEOUT_SECS).contains(secs))
                .ok_or_else(|| {
                    PolicyError::invalid(
                        "askTimeoutSecs",
                        format!(
                            "is not a whole number of seconds from 1 to {MAX_ASK_TIMEOUT_SECS}"
                        ),
                    )
                })?,
        };
        let rules = match object.get("rules") {
            None => Vec::new(),
            Some(Value::Array(rules)) if rules.len() > MAX_RULES => {
                return Err(PolicyError::invalid(
                    "rules",
                    format!(
                        "has {} rules; a policy holds at most {MAX_RULES}",
                        rules.len()
                    ),
                ))
            }
            Some(Value::Array(rules)) => rules
                .iter()
                .enumerate()
                .map(|(index, rule)| Rule::read(rule, &format!("rules[{index}]")))
                .collect::<Result<_, _>>()?,
            Some(_) => return Err(PolicyError::invalid("rules", "is not a list")),
        };
        Ok(Self {
            rules,
            default,
            ask_timeout_secs,
            document: value.clone(),
        })
    }

    /// How long an `ask` waits for the client before it is denied.
    pub fn ask_timeout_secs(&self) -> u64 {
        self.ask_timeout_secs
    }

    /// The policy as it was given.
    pub fn document(&self) -> &Value {
        &self.document
    }
}

impl Rule {
    /// Reads the rule `value` at `at` (`rules[2]`).
    fn read(value: &Value, at: &str) -> Result<Self, PolicyError> {
        let object = value
            .as_object()
            .ok_or_else(|| PolicyError::invalid(at, "is not an object"))?;
        only_fields(object, at, &["tool", "command", "path", "mcp", "decision"])?;
        let decision = match object.get("decision") {
            Some(value) => decision(value, &format!("{at}.decision"))?,
            None => {
                return Err(PolicyError::invalid(
                    format!("{at}.decision"),
                    "is missing (allow, ask or deny)",
                ))
            }
        };
        let tool = match object.get("tool") {
            None => None,
            Some(value) => {
                let name = value.as_str().unwrap_or_default();
                let known: Vec<&str> = ToolKind::ALL.iter().map(|(_, n)| *n).collect();
                Some(ToolKind::parse(name).ok_or_else(|| {
                    PolicyError::invalid(
                        format!("{at}.tool"),
                        format!("{value} is not a tool kind ({})", known.join(", ")),
                    )
                })?)
            }
        };
        let globs: Vec<&str> = ["command", "path", "mcp"]
            .into_iter()
            .filter(|field| object.contains_key(*field))
            .collect();
        let pattern = match globs[..] {
            [] => None,
            [field] => {
                let place = format!("{at}.{field}");
                if let Some(tool) = tool.filter(|tool| tool.field() != Some(field)) {
                    let reason = match tool.field() {
                        Some(own) => format!(
                            "cannot match: a {} request has no {field}, only a {own}",
                            tool.as_str()
                        ),
                        None => format!("cannot match: a {} request has no {field}", tool.as_str()),
                    };
                    return Err(PolicyError::invalid(place, reason));
                }
                let text = object[field]
                    .as_str()
                    .ok_or_else(|| PolicyError::invalid(&place, "is not a string"))?;
                Some(Pattern::read(field, text, &place)?)
            }
            _ => {
                return Err(PolicyError::invalid(
                    format!("{at}.{}", globs[1]),
                    format!(
                        "cannot match: no request has both a {} and a {}",
                        globs[0], globs[1]
                    ),
                ))
            }
        };
        Ok(Self {
            tool,
            pattern,
            decision,
        })
    }
}

impl Pattern {
    /// The glob `text` of `field`, checked (`place` names it in errors).
    fn read(field: &str, text: &str, place: &str) -> Result<Self, PolicyError> {
        if text.trim().is_empty() {
            return Err(PolicyError::invalid(
                place,
                "is empty: it would match nothing",
            ));
        }
        Ok(match field {
            "command" => {
                let words: Vec<&str> = text.split_whitespace().collect();
                Self::Command(glob(&words.join(" "), false, place)?)
            }
            "path" => Self::Path(paths::PathGlob::read(text, place)?),
            _ => {
                if !text.contains('/') {
                    return Err(PolicyError::invalid(
                        place,
                        "cannot match: an MCP tool is named server/tool",
                    ));
                }
                Self::Mcp(glob(text, true, place)?)
            }
        })
    }
}

/// `text` as a glob: `*` crosses `/` unless `separated`.
pub(crate) fn glob(text: &str, separated: bool, place: &str) -> Result<GlobMatcher, PolicyError> {
    GlobBuilder::new(text)
        .literal_separator(separated)
        .backslash_escape(true)
        .empty_alternates(true)
        .build()
        .map(|glob| glob.compile_matcher())
        .map_err(|error| PolicyError::invalid(place, format!("is not a glob: {}", error.kind())))
}

/// The name of `value` in a table of values and names.
fn name_in<T: PartialEq>(table: &[(T, &'static str)], value: T) -> &'static str {
    table
        .iter()
        .find(|(v, _)| *v == value)
        .map_or("", |(_, name)| name)
}

/// The value a table of values and names names `name`.
fn named_in<T: Copy>(table: &[(T, &'static str)], name: &str) -> Option<T> {
    table
        .iter()
        .find(|(_, n)| *n == name)
        .map(|(value, _)| *value)
}

/// A decision named by `value` at `place`.
fn decision(value: &Value, place: &str) -> Result<Decision, PolicyError> {
    value.as_str().and_then(Decision::parse).ok_or_else(|| {
        PolicyError::invalid(
            place,
            format!("{value} is not a decision (allow, ask or deny)"),
        )
    })
}

/// Refuses a field of `object` (at `at`) that is not one of `known`.
fn only_fields(object: &Map<String, Value>, at: &str, known: &[&str]) -> Result<(), PolicyError> {
    match object.keys().find(|key| !known.contains(&key.as_str())) {
        None => Ok(()),
        Some(unknown) => {
            let place = if at.is_empty() {
                unknown.clone()
            } else {
                format!("{at}.{unknown}")
            };
            Err(PolicyError::invalid(
                place,
                format!(
                    "unknown field `{unknown}`, expected one of {}",
                    known.join(", ")
                ),
            ))
        }
    }
}

/// serde_json's message without the position it appends.
fn reason_of(error: &serde_json::Error) -> String {
    let text = error.to_string();
    match text.rfind(" at line ") {
        Some(end) => text[..end].to_owned(),
        None => text,
    }
}
