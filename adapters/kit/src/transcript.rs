//! One-line renderings of actions, so adapter tests read like transcripts.
//!
//! [`render`] turns the actions an input returned into short lines that use the
//! universal API's names (`item.delta`, `tool_call`, `accept_for_session`...). A test
//! then states the whole exchange at a glance:
//!
//! ```
//! use sandbox_agent_adapter_kit::prelude::*;
//! use sandbox_agent_adapter_kit::transcript::render;
//!
//! let mut out = Actions::new();
//! out.emit(event::turn_started(Turn::with_id("turn_1")))
//!     .emit_all(event::assistant_message("itm_2", ["Hel", "lo"]))
//!     .emit(event::turn_ended(Turn::with_id("turn_1").with_usage(Usage::tokens(1, 1))));
//! assert_eq!(render(out.as_slice()), [
//!     "turn.started turn_1",
//!     "item.started itm_2 message/assistant in_progress []",
//!     "item.delta itm_2 \"Hel\"",
//!     "item.delta itm_2 \"lo\"",
//!     "item.completed itm_2 message/assistant completed [text \"Hello\"]",
//!     "turn.ended turn_1 usage(in=1 out=1)",
//! ]);
//! ```
//!
//! The format is meant for people reading tests, not for parsing: text is quoted with
//! Rust's `{:?}`, a synthetic event ends with ` (synthetic)`, a raw payload with
//! ` raw=<json>`.

use std::fmt::Write;

use crate::types::{
    Action, ContentPart, EmittedEvent, Event, FileAction, Item, ItemKind, ItemRole, ItemStatus,
    Permission, PermissionStatus, Question, QuestionStatus, ReasoningVisibility, SessionEndReason,
    TerminatedBy, Turn, Usage,
};

/// Renders each action as one line.
pub fn render(actions: &[Action]) -> Vec<String> {
    actions.iter().map(render_action).collect()
}

/// Renders only the emitted events, one line each (other actions are skipped).
pub fn render_events(actions: &[Action]) -> Vec<String> {
    actions
        .iter()
        .filter_map(|action| match action {
            Action::Emit(event) => Some(render_event(event)),
            _ => None,
        })
        .collect()
}

/// Renders one action.
pub fn render_action(action: &Action) -> String {
    match action {
        Action::Emit(event) => render_event(event),
        Action::SetNativeSessionId(id) => format!("set-native-session-id {id}"),
        Action::Spawn(spawn) => {
            let mut line = format!("spawn {} {:?}", spawn.process_id, spawn.argv);
            if let Some(cwd) = &spawn.cwd {
                let _ = write!(line, " cwd={cwd:?}");
            }
            if let Some(key) = &spawn.share_key {
                let _ = write!(line, " share={key:?}");
            }
            line
        }
        Action::WriteStdin(write) => {
            format!(
                "write-stdin {} {:?}",
                write.process_id,
                String::from_utf8_lossy(&write.data)
            )
        }
        Action::CloseStdin(id) => format!("close-stdin {id}"),
        Action::Kill(id) => format!("kill {id}"),
        Action::HttpRequest(request) => {
            format!(
                "http-request {} {} {}",
                request.request_id, request.method, request.url
            )
        }
        Action::OpenSse(request) => format!("open-sse {} {}", request.stream_id, request.url),
        Action::CloseSse(id) => format!("close-sse {id}"),
        Action::SetTimer(timer) => format!("set-timer {} {}ms", timer.timer_id, timer.delay_ms),
        Action::CancelTimer(id) => format!("cancel-timer {id}"),
        Action::WriteFile(file) => format!(
            "write-file {}{} {:?}",
            file.path,
            if file.executable { " (executable)" } else { "" },
            String::from_utf8_lossy(&file.contents)
        ),
    }
}

/// Renders one emitted event.
pub fn render_event(emitted: &EmittedEvent) -> String {
    let mut line = match &emitted.event {
        Event::SessionStarted(metadata) => {
            with_json("session.started".to_owned(), metadata.as_deref())
        }
        Event::SessionEnded(ended) => {
            let reason = match ended.reason {
                SessionEndReason::Completed => "completed",
                SessionEndReason::Error => "error",
                SessionEndReason::Terminated => "terminated",
            };
            let by = match ended.terminated_by {
                TerminatedBy::Agent => "agent",
                TerminatedBy::Daemon => "daemon",
            };
            let mut line = format!("session.ended {reason} by {by}");
            if let Some(message) = &ended.message {
                let _ = write!(line, " {message:?}");
            }
            line
        }
        Event::TurnStarted(turn) => render_turn("turn.started", turn),
        Event::TurnEnded(turn) => render_turn("turn.ended", turn),
        Event::ItemStarted(item) => render_item("item.started", item),
        Event::ItemCompleted(item) => render_item("item.completed", item),
        Event::ItemDelta(delta) => format!("item.delta {} {:?}", delta.item_id, delta.delta),
        Event::PermissionRequested(p) => render_permission("permission.requested", p),
        Event::PermissionResolved(p) => render_permission("permission.resolved", p),
        Event::QuestionRequested(q) => render_question("question.requested", q),
        Event::QuestionResolved(q) => render_question("question.resolved", q),
        Event::Error(error) => {
            let mut line = format!("error {:?}", error.message);
            if let Some(code) = &error.code {
                let _ = write!(line, " code={code}");
            }
            with_json(line, error.details.as_deref())
        }
        Event::AgentUnparsed(unparsed) => {
            format!("agent.unparsed {} {:?}", unparsed.location, unparsed.error)
        }
    };
    if let Some(raw) = &emitted.raw {
        let _ = write!(line, " raw={raw}");
    }
    if emitted.synthetic {
        line.push_str(" (synthetic)");
    }
    line
}

fn with_json(mut line: String, json: Option<&str>) -> String {
    if let Some(json) = json {
        line.push(' ');
        line.push_str(json);
    }
    line
}

/// `<name> <id> <action> <status>`, then the permission's metadata.
fn render_permission(name: &str, p: &Permission) -> String {
    let status = match p.status {
        PermissionStatus::Requested => "requested",
        PermissionStatus::Accept => "accept",
        PermissionStatus::AcceptForSession => "accept_for_session",
        PermissionStatus::Reject => "reject",
    };
    let line = format!("{name} {} {} {status}", p.permission_id, p.action);
    with_json(line, p.metadata.as_deref())
}

/// `<name> <id> <status> <prompt> <options>`, then the response when there is one.
fn render_question(name: &str, q: &Question) -> String {
    let status = match q.status {
        QuestionStatus::Requested => "requested",
        QuestionStatus::Answered => "answered",
        QuestionStatus::Rejected => "rejected",
    };
    let mut line = format!(
        "{name} {} {status} {:?} {:?}",
        q.question_id, q.prompt, q.options
    );
    if let Some(response) = &q.response {
        let _ = write!(line, " response={response:?}");
    }
    line
}

fn render_turn(name: &str, turn: &Turn) -> String {
    let mut line = name.to_owned();
    if let Some(id) = &turn.turn_id {
        let _ = write!(line, " {id}");
    }
    if let Some(usage) = &turn.usage {
        let _ = write!(line, " {}", render_usage(usage));
    }
    with_json(line, turn.metadata.as_deref())
}

fn render_usage(usage: &Usage) -> String {
    let mut fields = Vec::new();
    let counts = [
        ("in", usage.input_tokens),
        ("out", usage.output_tokens),
        ("cached", usage.cached_tokens),
        ("reasoning", usage.reasoning_tokens),
    ];
    for (name, value) in counts {
        if let Some(value) = value {
            fields.push(format!("{name}={value}"));
        }
    }
    if let Some(cost) = usage.cost_usd {
        fields.push(format!("cost=${cost}"));
    }
    format!("usage({})", fields.join(" "))
}

fn render_item(name: &str, item: &Item) -> String {
    let kind = match item.kind {
        ItemKind::Message => "message",
        ItemKind::ToolCall => "tool_call",
        ItemKind::ToolResult => "tool_result",
        ItemKind::System => "system",
        ItemKind::Status => "status",
        ItemKind::Unknown => "unknown",
    };
    let role = match item.role {
        Some(ItemRole::User) => "/user",
        Some(ItemRole::Assistant) => "/assistant",
        Some(ItemRole::System) => "/system",
        Some(ItemRole::Tool) => "/tool",
        None => "",
    };
    let status = match item.status {
        ItemStatus::InProgress => "in_progress",
        ItemStatus::Completed => "completed",
        ItemStatus::Failed => "failed",
    };
    let mut line = format!("{name} {} {kind}{role} {status}", item.item_id);
    if let Some(parent) = &item.parent_id {
        let _ = write!(line, " parent={parent}");
    }
    let parts: Vec<String> = item.content.iter().map(render_part).collect();
    let _ = write!(line, " [{}]", parts.join(", "));
    line
}

fn render_part(part: &ContentPart) -> String {
    match part {
        ContentPart::Text(text) => format!("text {text:?}"),
        ContentPart::Json(json) => format!("json {json}"),
        ContentPart::ToolCall(call) => {
            format!(
                "tool_call {} {} {}",
                call.call_id, call.name, call.arguments
            )
        }
        ContentPart::ToolResult(result) => {
            format!("tool_result {} {:?}", result.call_id, result.output)
        }
        ContentPart::FileRef(file) => {
            let action = match file.action {
                FileAction::Read => "read",
                FileAction::Write => "write",
                FileAction::Patch => "patch",
            };
            let mut part = format!("file_ref {action} {}", file.path);
            if let Some(diff) = &file.diff {
                let _ = write!(part, " diff={diff:?}");
            }
            part
        }
        ContentPart::Reasoning(reasoning) => {
            let visibility = match reasoning.visibility {
                ReasoningVisibility::Public => "public",
                ReasoningVisibility::Private => "private",
            };
            format!("reasoning {visibility} {:?}", reasoning.text)
        }
        ContentPart::Image(image) => match &image.mime {
            Some(mime) => format!("image {} {mime}", image.path),
            None => format!("image {}", image.path),
        },
        ContentPart::Status(status) => match &status.detail {
            Some(detail) => format!("status {:?} {detail:?}", status.label),
            None => format!("status {:?}", status.label),
        },
    }
}
