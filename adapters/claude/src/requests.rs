//! The CLI's `can_use_tool` requests as permissions and questions, and the client's
//! answers as `control_response`s.
//!
//! - `AskUserQuestion`: one universal question per question of the call (id = the
//!   request id, `<request id>-<n>` when there are several). Once all are answered,
//!   the call is allowed with `answers` (question text → chosen labels joined with
//!   `", "`) added to its input, which is how the CLI takes them. A rejected question
//!   denies the call.
//! - `ExitPlanMode`: a question with the plan and options `approve`/`reject`;
//!   `approve` allows the call (the CLI then leaves plan mode), anything else denies it.
//! - Any other tool: `permission.requested` (id = the request id). `once` allows the
//!   call; `always` allows it with the CLI's own suggested rules scoped to the
//!   session, and the adapter allows every later call of the same tool by itself
//!   (emitting the request already resolved as `accept_for_session`); `reject` denies it.

use sandbox_agent_adapter_kit::prelude::*;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::native::{AskUserQuestion, ToolRequest};
use crate::protocol;
use crate::state::{Out, Pending, PendingKind};

/// What a denied tool call returns to the model.
const DENIED: &str = "The user rejected this tool use.";
/// What a rejected plan returns to the model.
const PLAN_REJECTED: &str = "The user rejected the plan. Stay in plan mode and revise it.";
/// What a declined question returns to the model.
const DECLINED: &str = "The user declined to answer the question.";
/// The options of a plan approval.
const PLAN_OPTIONS: [&str; 2] = ["approve", "reject"];

/// A `can_use_tool` request of the CLI.
pub(crate) fn asked(o: &mut Out, request_id: &str, request: ToolRequest) {
    o.turn();
    match request.tool_name.as_str() {
        "AskUserQuestion" if !questions_of(&request.input).is_empty() => {
            ask_questions(o, request_id, request.input)
        }
        "ExitPlanMode" => ask_plan(o, request_id, request.input),
        _ => ask_permission(o, request_id, request),
    }
}

/// The questions of an `AskUserQuestion` input: text and option labels.
fn questions_of(input: &Value) -> Vec<(String, Vec<String>)> {
    let input = match input {
        Value::Object(_) => AskUserQuestion::deserialize(input).unwrap_or_default(),
        _ => AskUserQuestion::default(),
    };
    input
        .questions
        .into_iter()
        .filter_map(|question| question.0)
        .map(|question| {
            let labels = question.options.into_iter().filter_map(|o| o.0);
            (question.question, labels.map(|o| o.label).collect())
        })
        .collect()
}

fn ask_questions(o: &mut Out, request_id: &str, input: Value) {
    let questions = questions_of(&input);
    let several = questions.len() > 1;
    for (n, (prompt, options)) in questions.into_iter().enumerate() {
        let id = if several {
            format!("{request_id}-{}", n + 1)
        } else {
            request_id.to_owned()
        };
        let question = Question::requested(id.clone(), prompt, options);
        o.emit(event::question_requested(question.clone()));
        o.state.pending.insert(
            id,
            Pending {
                request_id: request_id.to_owned(),
                input: input.clone(),
                kind: PendingKind::Question { question },
            },
        );
    }
}

fn ask_plan(o: &mut Out, request_id: &str, input: Value) {
    let mut prompt = "Approve the plan?".to_owned();
    if let Some(plan) = input.get("plan").and_then(Value::as_str) {
        prompt.push_str("\n\n");
        prompt.push_str(plan);
    }
    let question = Question::requested(request_id, prompt, PLAN_OPTIONS);
    o.emit(event::question_requested(question.clone()));
    o.state.pending.insert(
        request_id.to_owned(),
        Pending {
            request_id: request_id.to_owned(),
            input,
            kind: PendingKind::Plan { question },
        },
    );
}

fn ask_permission(o: &mut Out, request_id: &str, request: ToolRequest) {
    let ToolRequest {
        tool_name: tool,
        input,
        permission_suggestions: suggestions,
        ..
    } = request;
    let mut metadata = json!({ "tool": tool, "input": input });
    let call = request.tool_use_id.as_ref().and_then(Value::as_str);
    if let (Some(call), Some(turn)) = (call, o.state.header.turn.as_mut()) {
        turn.asked.insert(call.to_owned());
    }
    for (value, to) in [
        (request.tool_use_id, "toolUseId"),
        (request.description, "description"),
        (request.blocked_path, "blockedPath"),
        (request.decision_reason, "decisionReason"),
        (suggestions.clone().filter(|v| !v.is_null()), "suggestions"),
    ] {
        if let Some(value) = value {
            metadata[to] = value;
        }
    }
    let permission = Permission::requested(
        request_id,
        action_of(&tool, &input),
        Some(metadata.to_string()),
    );
    o.emit(event::permission_requested(permission.clone()));
    if o.state.always_allowed.contains(&tool) {
        o.emit(event::permission_resolved(
            permission.resolved(PermissionReply::Always),
        ));
        o.write(&protocol::allow(request_id, &input, None));
        return;
    }
    o.state.pending.insert(
        request_id.to_owned(),
        Pending {
            request_id: request_id.to_owned(),
            input,
            kind: PendingKind::Permission {
                permission,
                tool,
                suggestions,
            },
        },
    );
}

/// What a tool call wants to do, in a few words: `Bash: ls -la`, `Write: /src/a.rs`,
/// or the tool's name.
fn action_of(tool: &str, input: &Value) -> String {
    let subject = [
        "command",
        "file_path",
        "notebook_path",
        "url",
        "pattern",
        "path",
    ]
    .iter()
    .find_map(|key| input.get(*key).and_then(Value::as_str));
    match subject {
        Some(subject) => format!("{tool}: {subject}"),
        None => tool.to_owned(),
    }
}

/// What the pending permission request `id` asks for.
pub(crate) fn describe_permission(
    pending: &std::collections::BTreeMap<String, Pending>,
    id: &str,
) -> Option<sandbox_agent_adapter_kit::types::ToolRequest> {
    let pending = pending.get(id)?;
    match &pending.kind {
        PendingKind::Permission { tool, .. } => Some(crate::policy::request(tool, &pending.input)),
        _ => None,
    }
}

/// The client answered permission request `id`.
pub(crate) fn reply_permission(
    o: &mut Out,
    id: &str,
    reply: PermissionReply,
) -> Result<(), String> {
    let Some(Pending {
        request_id,
        input,
        kind:
            PendingKind::Permission {
                permission,
                tool,
                suggestions,
            },
    }) = take(o, id, |kind| matches!(kind, PendingKind::Permission { .. }))
    else {
        return Err(format!("unknown permission id: {id}"));
    };
    let line = match reply {
        PermissionReply::Once => protocol::allow(&request_id, &input, None),
        PermissionReply::Always => {
            o.state.always_allowed.insert(tool);
            protocol::allow(&request_id, &input, suggestions.map(for_session))
        }
        PermissionReply::Reject => protocol::deny(&request_id, DENIED),
    };
    o.write(&line);
    o.emit(event::permission_resolved(permission.resolved(reply)));
    Ok(())
}

/// The CLI's suggested permission updates, applied to the session only (the CLI
/// suggests saving some in the project's settings file, which would outlive it).
fn for_session(mut suggestions: Value) -> Value {
    for suggestion in suggestions.as_array_mut().into_iter().flatten() {
        if suggestion.get("destination").is_some() {
            suggestion["destination"] = json!("session");
        }
    }
    suggestions
}

/// The client answered question `id` (`Some(answers)`) or declined it (`None`).
pub(crate) fn reply_question(
    o: &mut Out,
    id: &str,
    answers: Option<Vec<Vec<String>>>,
) -> Result<(), String> {
    let Some(pending) = take(o, id, |kind| {
        !matches!(kind, PendingKind::Permission { .. })
    }) else {
        return Err(format!("unknown question id: {id}"));
    };
    let (question, plan) = match &pending.kind {
        PendingKind::Question { question } => (question, false),
        PendingKind::Plan { question } => (question, true),
        PendingKind::Permission { .. } => return Err(format!("unknown question id: {id}")),
    };
    let resolved = match &answers {
        Some(answers) => question.answered(answers),
        None => question.rejected(),
    };
    o.emit(event::question_resolved(resolved.clone()));
    let request_id = pending.request_id.clone();
    if plan {
        let approved = resolved
            .response
            .as_deref()
            .is_some_and(|r| r.eq_ignore_ascii_case("approve"));
        let line = match approved {
            true => protocol::allow(&request_id, &pending.input, None),
            false => protocol::deny(&request_id, PLAN_REJECTED),
        };
        o.write(&line);
        return Ok(());
    }
    if answers.is_none() {
        // Declined: the whole call is denied, its other questions with it.
        o.state.answers.remove(&request_id);
        reject_request(o, &request_id);
        o.write(&protocol::deny(&request_id, DECLINED));
        return Ok(());
    }
    let response = resolved.response.clone().unwrap_or_default();
    let collected = o.state.answers.entry(request_id.clone()).or_default();
    collected.insert(resolved.prompt.clone(), response);
    let waiting = o.state.pending.values().any(|p| p.request_id == request_id);
    if !waiting {
        let collected = o.state.answers.remove(&request_id).unwrap_or_default();
        let mut input = pending.input.clone();
        input["answers"] = json!(collected);
        o.write(&protocol::allow(&request_id, &input, None));
    }
    Ok(())
}

/// Takes pending request `id` when `matches` accepts its kind.
fn take(o: &mut Out, id: &str, matches: impl Fn(&PendingKind) -> bool) -> Option<Pending> {
    match o.state.pending.get(id) {
        Some(pending) if matches(&pending.kind) => o.state.pending.remove(id),
        _ => None,
    }
}

/// The CLI withdrew request `request_id` (`control_cancel_request`, after an
/// interrupt): what the client was asked resolves as rejected.
pub(crate) fn cancelled_by_agent(o: &mut Out, request_id: &str) {
    o.state.answers.remove(request_id);
    reject_request(o, request_id);
}

/// Resolves every pending request as rejected (the turn is over).
pub(crate) fn reject_all(o: &mut Out) {
    o.state.answers.clear();
    let pending = std::mem::take(&mut o.state.pending);
    for pending in pending.into_values() {
        emit_rejected(o, pending);
    }
}

/// Resolves the pending requests of the CLI's `request_id` as rejected.
fn reject_request(o: &mut Out, request_id: &str) {
    let ids: Vec<String> = o
        .state
        .pending
        .values()
        .filter(|p| p.request_id == request_id)
        .map(|p| p.id().to_owned())
        .collect();
    for id in ids {
        if let Some(pending) = o.state.pending.remove(&id) {
            emit_rejected(o, pending);
        }
    }
}

fn emit_rejected(o: &mut Out, pending: Pending) {
    let event = match pending.kind {
        PendingKind::Permission { permission, .. } => {
            event::permission_resolved(permission.resolved(PermissionReply::Reject))
        }
        PendingKind::Question { question } | PendingKind::Plan { question } => {
            event::question_resolved(question.rejected())
        }
    };
    o.emit(event);
}
