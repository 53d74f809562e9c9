//! Server requests of this session's thread: approvals become permission requests,
//! `request_user_input` becomes a question, and the client's answers become the
//! JSON-RPC responses Codex waits for.

use sandbox_agent_adapter_kit::native;
use sandbox_agent_adapter_kit::prelude::*;
use sandbox_agent_adapter_kit::tool_request;
use serde_json::{json, Map, Value};

use crate::native::{ApprovalParams, AskedQuestion, UserInputParams};
use crate::state::{Ask, Pending, Shape, TurnState};
use crate::RPC;

/// What the session does with a server request.
// Built and consumed at once, never stored: the size difference does not matter.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Handling {
    /// Ask the client: keep `pending` under `id` and emit `event`.
    Ask {
        id: String,
        pending: Pending,
        event: EmittedEvent,
    },
    /// Answer at once with this line (requests this adapter does not support).
    Refuse(String),
}

/// How to handle server request `method`; `next_id` hands out permission and
/// question ids (`perm`, `question` prefixes).
pub(crate) fn handle(
    rpc_id: Value,
    method: &str,
    params: &Value,
    turn: Option<&TurnState>,
    mut next_id: impl FnMut(&str) -> String,
) -> Handling {
    let metadata = Some(params.to_string());
    let approval: ApprovalParams = native::read(params);
    let request = approval_request(method, &approval, turn);
    let ask = |id: String, ask: Ask, event: EmittedEvent| Handling::Ask {
        id,
        pending: Pending {
            rpc_id: rpc_id.clone(),
            ask,
            request,
        },
        event,
    };
    match method {
        "item/commandExecution/requestApproval" | "item/fileChange/requestApproval" => {
            let permission = Permission::requested(
                next_id("perm"),
                approval_action(method, &approval, turn),
                metadata,
            );
            let event = event::permission_requested(permission.clone());
            ask(
                permission.permission_id.clone(),
                Ask::Approval(permission),
                event,
            )
        }
        "item/permissions/requestApproval" => {
            let action = match approval.reason.as_str() {
                "" => "permissions: more sandbox access".to_owned(),
                reason => format!("permissions: {reason}"),
            };
            let permission = Permission::requested(next_id("perm"), action, metadata);
            let event = event::permission_requested(permission.clone());
            let requested = approval.permissions;
            let id = permission.permission_id.clone();
            ask(
                id,
                Ask::Permissions {
                    permission,
                    requested,
                },
                event,
            )
        }
        "item/tool/requestUserInput" => {
            let (question, ids) = question(next_id("question"), &native::read(params));
            let event = event::question_requested(question.clone());
            ask(
                question.question_id.clone(),
                Ask::Question { question, ids },
                event,
            )
        }
        "mcpServer/elicitation/request" => Handling::Refuse(RPC.result(
            &rpc_id,
            json!({ "action": "decline", "content": null, "_meta": null }),
        )),
        _ => Handling::Refuse(RPC.error(
            &rpc_id,
            -32601,
            &format!("{method} is not supported by sandbox-agent"),
        )),
    }
}

/// What an approval asks for, for an approval policy: the command line Codex would
/// run (read out of the login shell it wraps every command in, `/bin/bash -lc '...'`), the files a patch
/// changes (from its `fileChange` item), or more sandbox access (`other`).
fn approval_request(
    method: &str,
    params: &ApprovalParams,
    turn: Option<&TurnState>,
) -> Option<ToolRequest> {
    match method {
        "item/commandExecution/requestApproval" => Some(shell_request(&params.command)),
        "item/fileChange/requestApproval" => {
            let open = turn.and_then(|turn| turn.items.get(&params.item_id));
            match open.map(|open| &open.shape) {
                Some(Shape::Tool {
                    request: Some(request),
                    ..
                }) => Some(request.clone()),
                _ => Some(tool_request::writes(Vec::<String>::new())),
            }
        }
        "item/permissions/requestApproval" => Some(tool_request::other()),
        _ => None,
    }
}

/// What running `command` asks for: the command line read out of the login shell
/// Codex wraps every command in (`/bin/bash -lc '...'`).
pub(crate) fn shell_request(command: &str) -> ToolRequest {
    let words = shlex::split(command).unwrap_or_default();
    tool_request::shell(tool_request::shell_line(&words).unwrap_or(command))
}

/// A few words on what an approval allows: the command, or the files a patch changes
/// (from the `fileChange` item that started before the request).
fn approval_action(method: &str, params: &ApprovalParams, turn: Option<&TurnState>) -> String {
    let open = turn.and_then(|turn| turn.items.get(&params.item_id));
    if let Some(Shape::Tool { action, .. }) = open.map(|open| &open.shape) {
        return action.clone();
    }
    match method {
        "item/commandExecution/requestApproval" => {
            format!("shell: {}", params.command)
        }
        _ => "edit: files".to_owned(),
    }
}

/// The universal question of a `request_user_input` request, and Codex's question ids
/// in order. One question is shown as is; several are joined into one prompt (the
/// client answers with one list of choices per question, in order).
fn question(question_id: String, params: &UserInputParams) -> (Question, Vec<String>) {
    let missing = AskedQuestion::default();
    let questions: Vec<&AskedQuestion> = params
        .questions
        .iter()
        .map(|q| q.get().unwrap_or(&missing))
        .collect();
    let ids = questions.iter().map(|q| q.id.clone()).collect();
    let prompts: Vec<&str> = questions.iter().map(|q| q.question.as_str()).collect();
    let mut options: Vec<String> = Vec::new();
    for question in &questions {
        for option in &question.options {
            let label = option.get().map(|o| o.label.clone()).unwrap_or_default();
            if !options.contains(&label) {
                options.push(label);
            }
        }
    }
    (
        Question::requested(question_id, prompts.join("\n"), options),
        ids,
    )
}

/// The response to a pending approval or permissions request, and its
/// `permission.resolved` event; `None` for a question.
pub(crate) fn answer_permission(
    pending: &Pending,
    reply: PermissionReply,
) -> Option<(String, EmittedEvent)> {
    let (result, permission) = match &pending.ask {
        Ask::Approval(permission) => {
            let decision = match reply {
                PermissionReply::Once => "accept",
                PermissionReply::Always => "acceptForSession",
                PermissionReply::Reject => "decline",
            };
            (json!({ "decision": decision }), permission)
        }
        Ask::Permissions {
            permission,
            requested,
        } => {
            let (granted, scope) = match reply {
                PermissionReply::Once => (requested.clone(), "turn"),
                PermissionReply::Always => (requested.clone(), "session"),
                PermissionReply::Reject => (json!({}), "turn"),
            };
            (
                json!({ "permissions": granted, "scope": scope }),
                permission,
            )
        }
        Ask::Question { .. } => return None,
    };
    let event = event::permission_resolved(permission.resolved(reply));
    Some((RPC.result(&pending.rpc_id, result), event))
}

/// The response to a pending question (`answers`: one list per Codex question; `None`
/// when the client rejected it, answered with no answers), and its
/// `question.resolved` event; `None` for a permission.
pub(crate) fn answer_question(
    pending: &Pending,
    answers: Option<&[Vec<String>]>,
) -> Option<(String, EmittedEvent)> {
    let Ask::Question { question, ids } = &pending.ask else {
        return None;
    };
    let mut map = Map::new();
    for (id, chosen) in ids.iter().zip(answers.unwrap_or_default()) {
        map.insert(id.clone(), json!({ "answers": chosen }));
    }
    let resolved = match answers {
        Some(answers) => question.answered(answers),
        None => question.rejected(),
    };
    let line = RPC.result(&pending.rpc_id, json!({ "answers": map }));
    Some((line, event::question_resolved(resolved)))
}

/// The event that resolves a pending request as rejected (turn ended or cancelled;
/// Codex drops the request itself).
pub(crate) fn rejected(pending: &Pending) -> EmittedEvent {
    match &pending.ask {
        Ask::Approval(permission) | Ask::Permissions { permission, .. } => {
            event::permission_resolved(permission.resolved(PermissionReply::Reject))
        }
        Ask::Question { question, .. } => event::question_resolved(question.rejected()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn described(method: &str, params: Value) -> Option<ToolRequest> {
        match handle(json!(0), method, &params, None, |prefix| {
            format!("{prefix}_1")
        }) {
            Handling::Ask { pending, .. } => pending.request,
            Handling::Refuse(_) => None,
        }
    }

    #[test]
    fn approvals_describe_what_they_ask_for() {
        // As Codex 0.169 sends it (captures/codex/appserver-approval-accept.jsonl).
        let exec = json!({"itemId": "call_1", "command": "/bin/bash -lc 'echo hello > hello.txt'",
            "proposedExecpolicyAmendment": ["/bin/bash", "-lc", "echo hello > hello.txt"]});
        assert_eq!(
            described("item/commandExecution/requestApproval", exec),
            Some(tool_request::shell("echo hello > hello.txt"))
        );
        // A later Codex proposes the inner command as the amendment: the line is the same.
        let later = json!({"itemId": "call_1", "command": "/bin/bash -lc 'touch allowed.txt'",
            "proposedExecpolicyAmendment": ["touch", "allowed.txt"]});
        assert_eq!(
            described("item/commandExecution/requestApproval", later),
            Some(tool_request::shell("touch allowed.txt"))
        );
        // Quotes inside the line come back as the model wrote them.
        let quoted =
            json!({"itemId": "call_1", "command": "/bin/bash -lc 'touch '\"'\"'a b'\"'\"''"});
        assert_eq!(
            described("item/commandExecution/requestApproval", quoted),
            Some(tool_request::shell("touch 'a b'"))
        );
        let bare = json!({"itemId": "call_1", "command": "ls -la"});
        assert_eq!(
            described("item/commandExecution/requestApproval", bare),
            Some(tool_request::shell("ls -la"))
        );
        let more = json!({"itemId": "call_1", "reason": "network"});
        assert_eq!(
            described("item/permissions/requestApproval", more),
            Some(tool_request::other())
        );
        let question = json!({"questions": [{"id": "q", "question": "?"}]});
        assert_eq!(described("item/tool/requestUserInput", question), None);
    }
}
