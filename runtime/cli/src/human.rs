//! What the client subcommands print for a person: tables for lists, `key: value`
//! lines for one thing, and transcripts for events (streamed text as it comes,
//! tool calls, requests waiting for an answer with the command that answers
//! them). Scripts get JSON instead: with `--json`, or whenever stdout is not a
//! terminal.

use std::fmt::Write as _;
use std::io::IsTerminal;

use agentplex_client::{
    AgentInfo, AgentModelsResponse, AgentModesResponse, CreateSessionResponse,
    RegistryListResponse, SessionInfo,
};
use agentplex_universal::{
    BudgetLimit, ContentPart, ItemKind, ItemRole, ItemStatus, PermissionDecision, PermissionStatus,
    QuestionStatus, TurnPhase, UniversalEvent, UniversalEventData, UniversalItem,
};
use clap::Args;
use comfy_table::{presets, ContentArrangement, Table};

/// Output of the client subcommands.
#[derive(Debug, Clone, Args)]
pub struct OutputArgs {
    /// Print JSON (pretty, or one event per line) instead of text for people; the
    /// default when stdout is not a terminal.
    #[arg(long)]
    pub json: bool,
}

impl OutputArgs {
    /// Whether to print for a person.
    pub fn human(&self) -> bool {
        !self.json && std::io::stdout().is_terminal()
    }
}

/// Rows under headers, aligned in columns without borders.
pub fn table<const N: usize>(
    headers: [&str; N],
    rows: impl IntoIterator<Item = [String; N]>,
) -> String {
    let mut table = Table::new();
    table
        .load_preset(presets::NOTHING)
        .set_content_arrangement(ContentArrangement::Disabled)
        .set_header(headers);
    for row in rows {
        table.add_row(row);
    }
    for column in table.column_iter_mut() {
        column.set_padding((0, 2));
    }
    let lines: Vec<String> = table
        .lines()
        .map(|line| line.trim_end().to_owned())
        .collect();
    lines.join("\n")
}

fn or_dash(value: Option<&str>) -> String {
    value.unwrap_or("-").to_owned()
}

fn yes_no(value: bool) -> String {
    if value { "yes" } else { "no" }.to_owned()
}

/// `agents list`.
pub fn agents(agents: &[AgentInfo]) -> String {
    table(
        ["AGENT", "INSTALLED", "VERSION", "CREDENTIALS", "ADAPTER"],
        agents.iter().map(|agent| {
            [
                agent.id.clone(),
                yes_no(agent.installed),
                or_dash(agent.version.as_deref()),
                if agent.credentials_available {
                    "found"
                } else {
                    "missing"
                }
                .to_owned(),
                agent.adapter_version.clone(),
            ]
        }),
    )
}

/// `agents registry`.
pub fn registry(listing: &RegistryListResponse) -> String {
    let mut text = table(
        ["AGENT", "VERSION", "FROM", "INSTALLABLE", "ADDED", "NAME"],
        listing.agents.iter().map(|agent| {
            [
                agent.id.clone(),
                agent.version.clone(),
                agent.distributions.join(","),
                yes_no(agent.installable),
                yes_no(agent.added),
                agent.name.clone(),
            ]
        }),
    );
    if let Some(why) = &listing.stale {
        text.push_str(&format!(
            "\n(a cached copy: the registry could not be fetched: {why})"
        ));
    }
    text
}

/// A session's modes, model and variant as `sessions modes` changed them.
pub fn modes_changed(session_id: &str, modes: &agentplex_api::SessionModes) -> String {
    let mode = |mode: &Option<String>| mode.clone().unwrap_or_default();
    let named = |what: &str, name: &Option<String>| match name {
        Some(name) => format!(", {what} {name}"),
        None => String::new(),
    };
    let model = named("model", &modes.model);
    let variant = named("variant", &modes.variant);
    format!(
        "{session_id}: agent mode {}, permission mode {}{model}{variant}, from the next message on",
        mode(&modes.agent_mode),
        mode(&modes.permission_mode)
    )
}

/// `agents modes`.
pub fn modes(modes: &AgentModesResponse) -> String {
    table(
        ["MODE", "NAME", "DESCRIPTION"],
        modes
            .modes
            .iter()
            .map(|mode| [mode.id.clone(), mode.name.clone(), mode.description.clone()]),
    )
}

/// `agents models`.
pub fn models(models: &AgentModelsResponse) -> String {
    table(
        ["MODEL", "NAME", "VARIANTS"],
        models.models.iter().map(|model| {
            [
                model.id.clone(),
                or_dash(model.name.as_deref()),
                model.variants.as_ref().map_or("-".into(), |v| v.join(", ")),
            ]
        }),
    )
}

/// `fs ls`.
pub fn entries(entries: &[agentplex_client::FsEntry]) -> String {
    table(
        ["TYPE", "SIZE", "MODIFIED", "NAME"],
        entries.iter().map(|entry| {
            [
                json_name(&entry.entry_type),
                entry.size.to_string(),
                or_dash(entry.modified.as_deref()),
                entry.name.clone(),
            ]
        }),
    )
}

/// `fs stat`.
pub fn stat(stat: &agentplex_client::FsStat) -> String {
    format!(
        "path:     {}\ntype:     {}\nsize:     {}\nmodified: {}",
        stat.path,
        json_name(&stat.entry_type),
        stat.size,
        or_dash(stat.modified.as_deref())
    )
}

/// `processes list`.
pub fn processes(processes: &[agentplex_client::ProcessInfo]) -> String {
    if processes.is_empty() {
        return "no processes (start one: agentplex processes start -- COMMAND)".into();
    }
    table(
        ["ID", "STATUS", "PID", "TTY", "COMMAND"],
        processes.iter().map(|p| {
            [
                p.id.clone(),
                status(p),
                p.pid.map_or("-".into(), |pid| pid.to_string()),
                yes_no(p.tty),
                std::iter::once(&p.command)
                    .chain(&p.args)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(" "),
            ]
        }),
    )
}

/// One process (`processes start|get|stop|kill`).
pub fn process(p: &agentplex_client::ProcessInfo) -> String {
    let command = std::iter::once(&p.command)
        .chain(&p.args)
        .cloned()
        .collect::<Vec<_>>();
    format!(
        "id:      {}\nstatus:  {}\npid:     {}\ntty:     {}\ncommand: {}",
        p.id,
        status(p),
        p.pid.map_or("-".into(), |pid| pid.to_string()),
        yes_no(p.tty),
        command.join(" ")
    )
}

/// How a process ended: `exited with 3`, `killed by signal 9`.
pub fn exit(p: &agentplex_client::ProcessInfo) -> String {
    match (p.exit_code, p.signal) {
        (Some(code), _) => format!("{} exited with {code}", p.id),
        (None, Some(signal)) => format!("{} was killed by signal {signal}", p.id),
        (None, None) => format!("{} exited", p.id),
    }
}

/// `running`, `exited (3)`, `exited (signal 9)`.
fn status(p: &agentplex_client::ProcessInfo) -> String {
    match (p.status, p.exit_code, p.signal) {
        (agentplex_client::ProcessState::Running, ..) => "running".into(),
        (_, Some(code), _) => format!("exited ({code})"),
        (_, None, Some(signal)) => format!("exited (signal {signal})"),
        _ => "exited".into(),
    }
}

/// `sessions list`.
pub fn sessions(sessions: &[SessionInfo]) -> String {
    if sessions.is_empty() {
        return "no sessions (create one: agentplex sessions create ID --agent AGENT)".into();
    }
    let row = |session: &SessionInfo| {
        [
            session.session_id.clone(),
            session.agent.clone(),
            json_name(&session.status),
            session.event_count.to_string(),
            session.queued_messages.to_string(),
            time(session.updated_at),
            or_dash(session.title.as_deref()),
        ]
    };
    let headers = [
        "SESSION", "AGENT", "STATUS", "EVENTS", "QUEUED", "UPDATED", "TITLE",
    ];
    if sessions.iter().all(|session| session.owner.is_none()) {
        return table(headers, sessions.iter().map(row));
    }
    // A database daemons share: which daemon drives each session, and whether it lives.
    let owner = |session: &SessionInfo| match (&session.owner, session.owner_alive) {
        (Some(owner), Some(false)) => format!("{owner} (not alive)"),
        (owner, _) => or_dash(owner.as_deref()),
    };
    let [a, b, c, d, e, f, g] = headers;
    table(
        [a, b, c, d, e, f, g, "OWNER"],
        sessions.iter().map(|session| {
            let [a, b, c, d, e, f, g] = row(session);
            [a, b, c, d, e, f, g, owner(session)]
        }),
    )
}

/// Unix milliseconds as a UTC time to the second.
fn time(millis: i64) -> String {
    let format = time::macros::format_description!("[year]-[month]-[day] [hour]:[minute]:[second]");
    time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(millis) * 1_000_000)
        .ok()
        .and_then(|t| t.format(&format).ok())
        .unwrap_or_else(|| millis.to_string())
}

/// `sessions get`.
pub fn session(session: &SessionInfo) -> String {
    let fields = [
        ("session", session.session_id.clone()),
        ("agent", session.agent.clone()),
        ("status", json_name(&session.status)),
        ("agent mode", session.agent_mode.clone()),
        ("permission mode", session.permission_mode.clone()),
        ("model", or_dash(session.model.as_deref())),
        ("title", or_dash(session.title.as_deref())),
        ("directory", or_dash(session.directory.as_deref())),
        (
            "native session",
            or_dash(session.native_session_id.as_deref()),
        ),
        ("events", session.event_count.to_string()),
        ("queued messages", session.queued_messages.to_string()),
        ("created", time(session.created_at)),
        ("updated", time(session.updated_at)),
    ];
    let mut text = String::new();
    for (name, value) in fields {
        let _ = writeln!(text, "{:<16} {value}", format!("{name}:"));
    }
    text.trim_end().to_owned()
}

/// `sessions create`.
pub fn created(session_id: &str, agent: &str, answer: &CreateSessionResponse) -> String {
    if answer.healthy && answer.error.is_none() {
        return format!(
            "created session {session_id} ({agent}); send it a message: agentplex sessions send {session_id} TEXT"
        );
    }
    let detail = answer
        .error
        .as_ref()
        .map_or("no detail", |e| e.message.as_str());
    format!("created session {session_id} ({agent}), but the agent is not healthy: {detail}")
}

/// Renders events as a transcript, one event at a time, for a person following
/// a session: streamed text is printed as it comes.
#[derive(Default)]
pub struct Transcript {
    /// The item whose deltas are being printed, with whether any was.
    streaming: Option<(String, bool)>,
}

impl Transcript {
    /// The text `event` adds to the transcript (possibly nothing).
    pub fn render(&mut self, event: &UniversalEvent) -> String {
        let session = &event.session_id;
        let mut out = String::new();
        match &event.data {
            UniversalEventData::ItemDelta(delta) => {
                if self.streaming.as_ref().map(|(id, _)| id) != Some(&delta.item_id) {
                    out.push_str(&self.close());
                    self.streaming = Some((delta.item_id.clone(), false));
                }
                if let Some((_, printed)) = &mut self.streaming {
                    *printed = true;
                }
                out.push_str(&delta.delta);
            }
            UniversalEventData::Item(data) => {
                let item = &data.item;
                let streamed = self
                    .streaming
                    .as_ref()
                    .is_some_and(|(id, printed)| *id == item.item_id && *printed);
                if streamed {
                    if item.status != ItemStatus::InProgress {
                        out.push_str(&self.close());
                    }
                } else if item.status != ItemStatus::InProgress {
                    out.push_str(&self.close());
                    out.push_str(&item_text(item));
                }
            }
            UniversalEventData::Permission(permission) => {
                out.push_str(&self.close());
                if permission.status == PermissionStatus::Requested {
                    let detail = permission
                        .metadata
                        .as_ref()
                        .and_then(|m| m.get("command"))
                        .and_then(|c| c.as_str())
                        .map(|command| format!(": {command}"))
                        .unwrap_or_default();
                    let _ = writeln!(
                        out,
                        "? permission {} ({}{detail})\n  answer: agentplex permissions reply {session} {} once|always|reject",
                        permission.permission_id, permission.action, permission.permission_id
                    );
                } else {
                    let _ = writeln!(
                        out,
                        "  permission {}: {}",
                        permission.permission_id,
                        json_name(&permission.status)
                    );
                }
            }
            // What the policy left to the client is asked above; the rest is said.
            UniversalEventData::PermissionDecided(decided)
                if decided.decision != PermissionDecision::Ask =>
            {
                out.push_str(&self.close());
                let _ = writeln!(
                    out,
                    "  permission {}: {}",
                    decided.permission_id, decided.reason
                );
            }
            UniversalEventData::Question(question) => {
                out.push_str(&self.close());
                if question.status == QuestionStatus::Requested {
                    let options = if question.options.is_empty() {
                        String::new()
                    } else {
                        format!(" [{}]", question.options.join(" / "))
                    };
                    let _ = writeln!(
                        out,
                        "? {}{options}\n  answer: agentplex questions reply {session} {} --answer TEXT",
                        question.prompt, question.question_id
                    );
                } else {
                    let _ = writeln!(
                        out,
                        "  question {}: {}",
                        question.question_id,
                        json_name(&question.status)
                    );
                }
            }
            UniversalEventData::Turn(turn) => {
                out.push_str(&self.close());
                if turn.phase == TurnPhase::Ended {
                    let usage = turn
                        .usage
                        .as_ref()
                        .and_then(|u| {
                            Some(format!(
                                " ({} in, {} out tokens)",
                                u.input_tokens?, u.output_tokens?
                            ))
                        })
                        .unwrap_or_default();
                    let _ = writeln!(out, "-- turn ended{usage}");
                }
            }
            UniversalEventData::SessionEnded(ended) => {
                out.push_str(&self.close());
                let mut line = format!("== session ended: {}", json_name(&ended.reason));
                if let Some(message) = &ended.message {
                    let _ = write!(line, ": {message}");
                }
                if let Some(code) = ended.exit_code {
                    let _ = write!(line, " (exit code {code})");
                }
                let _ = writeln!(out, "{line}");
            }
            UniversalEventData::Error(error) => {
                out.push_str(&self.close());
                let _ = writeln!(out, "! {}", error.message);
            }
            UniversalEventData::BudgetReached(reached) => {
                out.push_str(&self.close());
                let cap = match (reached.limit, reached.max_cost_usd, reached.max_tokens) {
                    (BudgetLimit::CostUsd, Some(cost), _) => format!("${cost}"),
                    (BudgetLimit::Tokens, _, Some(tokens)) => format!("{tokens} tokens"),
                    _ => "its cap".to_owned(),
                };
                let _ = writeln!(
                    out,
                    "! the {} budget reached {cap} (spent ${:.4}, {} tokens): model calls are refused until it is raised",
                    json_name(&reached.scope),
                    reached.spent_cost_usd,
                    reached.spent_tokens
                );
            }
            // A model call's usage adds up in `turn.ended`'s, printed there.
            UniversalEventData::AgentUnparsed(_)
            | UniversalEventData::SessionStarted(_)
            | UniversalEventData::ModelUsage(_)
            | UniversalEventData::PermissionDecided(_) => {}
        }
        out
    }

    /// Ends the line of the item being streamed, if any.
    fn close(&mut self) -> String {
        match self.streaming.take() {
            Some((_, true)) => "\n".into(),
            _ => String::new(),
        }
    }
}

/// A finished item as transcript lines.
fn item_text(item: &UniversalItem) -> String {
    let mut out = String::new();
    for part in &item.content {
        let line = match part {
            ContentPart::Text { text } => match (item.kind, item.role) {
                (ItemKind::Message, Some(ItemRole::User)) => format!("> {text}"),
                (ItemKind::Message, _) => text.clone(),
                _ => format!("  {text}"),
            },
            ContentPart::Reasoning { text, .. } => format!("(thinking) {text}"),
            ContentPart::ToolCall {
                name, arguments, ..
            } => format!("* {name} {arguments}"),
            ContentPart::ToolResult { output, .. } => indent(&clip(output, 12)),
            ContentPart::FileRef { path, action, .. } => format!("  {}: {path}", json_name(action)),
            ContentPart::Status { label, detail } => {
                format!(
                    "  [{label}{}]",
                    detail
                        .as_ref()
                        .map(|d| format!(": {d}"))
                        .unwrap_or_default()
                )
            }
            ContentPart::Image { path, .. } => format!("  [image {path}]"),
            ContentPart::Json { json } => format!("  {json}"),
        };
        let _ = writeln!(out, "{}", line.trim_end());
    }
    if item.status == ItemStatus::Failed {
        out.push_str("  (failed)\n");
    }
    out
}

/// The first `lines` lines of `text`, saying how many more there were.
fn clip(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    let mut clipped = all
        .iter()
        .take(lines)
        .copied()
        .collect::<Vec<_>>()
        .join("\n");
    if all.len() > lines {
        let _ = write!(clipped, "\n... {} more lines", all.len() - lines);
    }
    clipped
}

fn indent(text: &str) -> String {
    text.lines()
        .map(|line| format!("  | {line}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A unit enum's wire name (`accept_for_session`, `ended`...).
fn json_name(value: &impl serde::Serialize) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|value| value.as_str().map(str::to_owned))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A session of a shared database, as `GET /v1/sessions?scope=fleet` lists it.
    fn listed(id: &str, owner: Option<&str>, alive: Option<bool>) -> SessionInfo {
        serde_json::from_value(serde_json::json!({
            "sessionId": id, "agent": "mock", "agentMode": "build",
            "permissionMode": "default", "ended": false, "eventCount": 3,
            "createdAt": 0, "updatedAt": 0, "status": "idle", "queuedMessages": 0,
            "owner": owner, "ownerAlive": alive,
        }))
        .unwrap()
    }

    #[test]
    fn the_owner_column_shows_only_for_a_shared_database() {
        let alone = sessions(&[listed("a", None, None)]);
        assert!(!alone.contains("OWNER"), "{alone}");
        let fleet = sessions(&[
            listed("a", Some("left"), Some(true)),
            listed("b", Some("right"), Some(false)),
        ]);
        assert!(fleet.contains("OWNER"), "{fleet}");
        assert!(fleet.contains("right (not alive)"), "{fleet}");
        assert!(!fleet.contains("left (not alive)"), "{fleet}");
    }
}
