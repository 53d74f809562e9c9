//! The mock's script: what each command emits.
//!
//! [`run`] picks a command from the message (a few exact prompts of the shared agent
//! test suite first, then the first word) and emits its events through a [`Ctx`]. A
//! command either finishes within the call ([`Flow::Done`]), or parks the turn until
//! an input arrives ([`Flow::Wait`]): a permission or question reply, a process's exit,
//! a timer tick. The continuations for those inputs live here too. `docs/mock-agent.md`
//! documents every sequence; keep the two in step.

use sandbox_agent_adapter_kit::prelude::*;
use serde_json::json;

use crate::state::{AfterPermission, State, TurnInfo, Waiting};

mod showcase;

/// How long a `slow` tick waits, in milliseconds.
const SLOW_TICK_MS: u32 = 100;
/// Ticks of `slow` without a number.
const SLOW_DEFAULT_TICKS: u32 = 50;
/// The most ticks `slow` accepts (an hour).
const SLOW_MAX_TICKS: u32 = 36_000;
/// The command a bare `permission` asks to run.
const DEFAULT_PERMISSION_COMMAND: &str = "echo mock";

/// Prompts of the shared agent test suite, answered exactly as 0.1.x did.
const OK_PROMPT: &str = "Reply with exactly the single word OK.";
const FIRST_PROMPT: &str = "Reply with exactly the word FIRST.";
const SECOND_PROMPT: &str = "Reply with exactly the word SECOND.";
const REASONING_PROMPT: &str = "Answer briefly and include your reasoning.";
const STATUS_PROMPT: &str = "Provide a short status update.";
const PERMISSION_PROMPT: &str = "List files in the current directory using available tools.";
const TOOL_PROMPT: &str =
    "Use the bash tool to run `ls` in the current directory. Do not answer without using the tool.";
const QUESTION_PROMPTS: [&str; 2] = [
    "Use the AskUserQuestion tool to ask exactly one yes/no question, then wait for a reply. Do not answer yourself.",
    "Call the AskUserQuestion tool with exactly one yes/no question and wait for a reply. Do not answer yourself.",
];

const HELP: &str = "Mock agent commands (the first word of a message):
- help: this list.
- echo <text> (or say): reply with <text>.
- demo: every kind of event in one turn, each announced by a marker message.
- markdown: a markdown document streamed in 8 deltas.
- tool: a tool call and its (failed) result with file references.
- status: a status item that updates.
- image: a message with an image part.
- unknown: an item of kind unknown.
- reasoning <topic> (or think): a reasoning item, then an answer.
- file [path] [text]: a new file, as a file change with a diff (nothing is written).
- edit [path] [text]: a changed file, as a file change with a diff (nothing is written).
- shell <command>: run <command> with `sh -c` and stream its output.
- slow [n]: stream n deltas, one every 100 ms (default 50); try cancelling it.
- permission [command]: ask for permission to run a command, and wait for the reply.
- question: ask a question and wait for the answer.
- usage: report the session's token usage.
- settings: report the session's agent mode, permission mode, model and variant.
- error: an error event and an agent.unparsed event.
- unparsed: an agent.unparsed event.
- end: end the session.

Any other text is echoed back.";

const EMPTY_MESSAGE_REPLY: &str = "Send `help` to list the mock agent's commands.";

/// What a command leaves the turn in.
pub(crate) enum Flow {
    /// Finished: the turn ends now.
    Done,
    /// The turn waits for this input.
    Wait(Waiting),
    /// The turn ends, and the session after it (`end`).
    EndSession,
}

/// What a command works with: the session's state, its configuration, the turn's
/// bookkeeping and the actions of the current call.
pub(crate) struct Ctx<'a> {
    pub state: &'a mut State,
    pub config: &'a SessionConfig,
    pub turn: &'a mut TurnInfo,
    pub out: &'a mut Actions,
}

impl Ctx<'_> {
    fn item_id(&mut self) -> String {
        self.state.ids.next("itm")
    }

    /// `mock_<turn number>`: names fixture paths and request ids, as 0.1.x did.
    fn prefix(&self) -> String {
        format!("mock_{}", self.turn.number)
    }

    /// True in plan mode (agent mode or permission mode `plan`).
    fn planning(&self) -> bool {
        self.config.agent_mode == "plan" || self.config.permission_mode == "plan"
    }

    /// An assistant text message, streamed.
    fn say(&mut self, text: &str) {
        self.message(
            vec![ContentPart::Text(text.to_owned())],
            stream_pieces(text),
        );
    }

    /// An assistant message with `content`: `item.started` with no content, one
    /// `item.delta` per piece of its text, `item.completed` with `content`. Its text
    /// counts as output tokens, its reasoning as reasoning tokens.
    fn message(&mut self, content: Vec<ContentPart>, pieces: usize) {
        let id = self.item_id();
        let item = item::assistant_message(id.clone(), content);
        let text = item.text();
        for part in &item.content {
            if let ContentPart::Reasoning(reasoning) = part {
                self.turn.reasoning_tokens += text::word_count(&reasoning.text);
            }
        }
        self.turn.output_tokens += text::word_count(&text);
        self.out.emit(event::item_started(
            item.clone().in_progress().without_content(),
        ));
        for piece in text::chunks(&text, pieces) {
            self.out.emit(event::item_delta(id.clone(), piece));
        }
        self.out.emit(event::item_completed(item));
    }

    /// A reasoning item (an assistant message with one reasoning part), streamed.
    fn think(&mut self, reasoning: &str) {
        let id = self.item_id();
        self.turn.reasoning_tokens += text::word_count(reasoning);
        let item = item::reasoning(id.clone(), reasoning, ReasoningVisibility::Public);
        self.out.emit(event::item_started(
            item.clone().in_progress().without_content(),
        ));
        for piece in text::chunks(reasoning, stream_pieces(reasoning)) {
            self.out.emit(event::item_delta(id.clone(), piece));
        }
        self.out.emit(event::item_completed(item));
    }

    /// `item.started` (in progress) then `item.completed` of `item`, no deltas.
    fn whole(&mut self, item: Item) {
        self.out
            .emit(event::item_started(item.clone().in_progress()))
            .emit(event::item_completed(item));
    }
}

/// How many deltas a streamed text gets: one per word, at least 3 and at most 8.
fn stream_pieces(text: &str) -> usize {
    (text::word_count(text) as usize).clamp(3, 8)
}

/// Runs the command in a user message.
pub(crate) fn run(cx: &mut Ctx, parts: &[MessagePart]) -> Flow {
    let message = text::message_text(parts);
    let trimmed = message.trim();
    if let Some(flow) = test_prompt(cx, trimmed) {
        return flow;
    }
    let (command, rest) = text::command(trimmed);
    match command.as_str() {
        "" => say(cx, EMPTY_MESSAGE_REPLY),
        "help" => say(cx, HELP),
        "echo" | "say" if rest.is_empty() => say(cx, "Tell me what to say after `echo`."),
        "echo" | "say" => say(cx, rest),
        "demo" => showcase::demo(cx),
        "markdown" => showcase::markdown(cx),
        "tool" | "tools" | "tooling" => showcase::tool(cx),
        "status" => showcase::status(cx),
        "image" => showcase::image(cx),
        "unknown" => showcase::unknown(cx),
        "reasoning" | "think" => showcase::reasoning(cx, rest),
        "file" => showcase::file_change(cx, rest, FileAction::Write),
        "edit" => showcase::file_change(cx, rest, FileAction::Patch),
        "shell" => shell(cx, rest),
        "slow" => slow(cx, rest),
        "permission" | "permissions" => {
            let command = if rest.is_empty() {
                DEFAULT_PERMISSION_COMMAND
            } else {
                rest
            };
            ask_permission(
                cx,
                command,
                AfterPermission::Report {
                    command: command.to_owned(),
                },
            )
        }
        "question" | "questions" => {
            let id = format!("{}_question", cx.prefix());
            ask(
                cx,
                Question::requested(id, "Choose a color", ["Red", "Blue"]),
            )
        }
        "usage" => showcase::usage(cx),
        "settings" => settings(cx),
        "error" => showcase::error(cx),
        "unparsed" => showcase::unparsed(cx),
        "end" | "ended" | "session.end" => Flow::EndSession,
        _ => echo_message(cx, trimmed, parts),
    }
}

/// The exact prompts the 0.1.x mock answered for the shared agent test suite.
fn test_prompt(cx: &mut Ctx, message: &str) -> Option<Flow> {
    let is = |prompt: &str| message.eq_ignore_ascii_case(prompt);
    let flow = if is(OK_PROMPT) {
        say(cx, "OK")
    } else if is(FIRST_PROMPT) {
        say(cx, "FIRST")
    } else if is(SECOND_PROMPT) {
        say(cx, "SECOND")
    } else if is(REASONING_PROMPT) {
        showcase::rich_message(cx);
        Flow::Done
    } else if is(STATUS_PROMPT) {
        showcase::status(cx)
    } else if is(PERMISSION_PROMPT) {
        ask_permission(
            cx,
            "ls",
            AfterPermission::Report {
                command: "ls".to_owned(),
            },
        )
    } else if is(TOOL_PROMPT) {
        ask_permission(
            cx,
            "ls",
            AfterPermission::ToolSequence {
                command: "ls".to_owned(),
            },
        )
    } else if QUESTION_PROMPTS.iter().any(|prompt| is(prompt)) {
        let id = format!("{}_question", cx.prefix());
        ask(cx, Question::requested(id, "Proceed?", ["Yes", "No"]))
    } else {
        return None;
    };
    Some(flow)
}

fn say(cx: &mut Ctx, text: &str) -> Flow {
    cx.say(text);
    Flow::Done
}

/// The session's agent mode, permission mode, model and its variant (when
/// one is named), as the mock runs them now (they change with `PUT
/// /v1/sessions/{id}/modes`).
fn settings(cx: &mut Ctx) -> Flow {
    let model = cx.config.chosen_model().unwrap_or("the default");
    let variant = match cx.config.chosen_variant() {
        Some(variant) => format!(", variant {variant}"),
        None => String::new(),
    };
    let text = format!(
        "Agent mode {}, permission mode {}, model {model}{variant}.",
        cx.config.agent_mode, cx.config.permission_mode
    );
    say(cx, &text)
}

/// Plain text: echoed back, with the attachments listed as 0.1.x did.
fn echo_message(cx: &mut Ctx, message: &str, parts: &[MessagePart]) -> Flow {
    let mut reply = message.to_owned();
    let attachments = text::attachment_paths(parts);
    if !attachments.is_empty() {
        reply.push_str("\n\nAttachments:");
        for path in attachments {
            reply.push_str("\n- ");
            reply.push_str(path);
        }
    }
    say(cx, &reply)
}

/// `shell <command>`: a `shell` tool call, then a real `sh -c <command>` process whose
/// stdout streams into the in-progress tool result until it exits.
fn shell(cx: &mut Ctx, command: &str) -> Flow {
    if command.is_empty() {
        return say(cx, "Tell me what to run after `shell`.");
    }
    if cx.planning() {
        return say(cx, &format!("Plan mode: I would run `{command}`."));
    }
    let call_id = cx.state.ids.next("call");
    let process_id = cx.state.ids.next("shell");
    let call_item = cx.item_id();
    let arguments = json!({ "command": command }).to_string();
    cx.whole(item::tool_call(call_item, "shell", arguments, &call_id));
    let item_id = cx.item_id();
    cx.out
        .emit(event::item_started(
            item::tool_result(&item_id, &call_id, "").in_progress(),
        ))
        .spawn(
            SpawnRequest::command(&process_id, ["sh", "-c", command])
                .with_env(cx.config.env.iter().cloned()),
        );
    Flow::Wait(Waiting::Shell {
        process_id,
        command: command.to_owned(),
        call_id,
        item_id,
        stdout: String::new(),
        stderr: String::new(),
    })
}

/// A `shell` process exited (`Ok`) or could not start (`Err`): the result completes
/// (failed unless it exited with 0) and an assistant message says how it ended.
pub(crate) fn shell_finished(
    cx: &mut Ctx,
    waiting: Waiting,
    outcome: Result<ExitStatus, String>,
) -> Flow {
    let Waiting::Shell {
        command,
        call_id,
        item_id,
        stdout,
        stderr,
        ..
    } = waiting
    else {
        return Flow::Done;
    };
    let (output, succeeded, mut summary) = match &outcome {
        Ok(status) if status.success() => {
            (stdout, true, format!("`{command}` exited with code 0."))
        }
        Ok(status) => (
            stdout,
            false,
            format!("`{command}` failed with {}.", status.describe()),
        ),
        Err(message) => (
            message.clone(),
            false,
            format!("`{command}` could not start: {message}"),
        ),
    };
    let result = item::tool_result(item_id, call_id, output);
    cx.out.emit(event::item_completed(if succeeded {
        result
    } else {
        result.failed()
    }));
    if !stderr.is_empty() {
        summary.push_str("\n\nstderr:\n");
        summary.push_str(stderr.trim_end());
    }
    say(cx, &summary)
}

/// `slow [n]`: an assistant message that gets one delta per 100 ms timer tick.
fn slow(cx: &mut Ctx, rest: &str) -> Flow {
    let total = rest
        .split_whitespace()
        .next()
        .and_then(|n| n.parse::<u32>().ok())
        .unwrap_or(SLOW_DEFAULT_TICKS)
        .clamp(1, SLOW_MAX_TICKS);
    let item_id = cx.item_id();
    let timer_id = cx.state.ids.next("slow");
    cx.out
        .emit(event::assistant_text_started(&item_id))
        .set_timer(&timer_id, SLOW_TICK_MS);
    Flow::Wait(Waiting::Slow {
        timer_id,
        item_id,
        done: 0,
        total,
        text: String::new(),
    })
}

/// A `slow` tick: one more delta, and the next timer or the end of the message.
pub(crate) fn slow_tick(cx: &mut Ctx, waiting: Waiting) -> Flow {
    let Waiting::Slow {
        timer_id,
        item_id,
        done,
        total,
        mut text,
    } = waiting
    else {
        return Flow::Done;
    };
    let done = done + 1;
    let delta = format!("tick {done}/{total}\n");
    text.push_str(&delta);
    cx.out.emit(event::item_delta(&item_id, delta));
    if done < total {
        cx.out.set_timer(&timer_id, SLOW_TICK_MS);
        return Flow::Wait(Waiting::Slow {
            timer_id,
            item_id,
            done,
            total,
            text,
        });
    }
    cx.turn.output_tokens += text::word_count(&text);
    cx.out.emit(event::assistant_text_completed(item_id, text));
    Flow::Done
}

/// Emits `permission.requested` for running `command` and waits, unless the client
/// already allowed command execution for the session (then it resolves at once).
fn ask_permission(cx: &mut Ctx, command: &str, then: AfterPermission) -> Flow {
    let id = format!("{}_permission", cx.prefix());
    let metadata = json!({ "tool": "bash", "command": command }).to_string();
    let permission = Permission::requested(id, "command_execution", Some(metadata));
    cx.out.emit(event::permission_requested(permission.clone()));
    if cx.state.allowed_for_session.contains(&permission.action) {
        cx.out.emit(event::permission_resolved(
            permission.resolved(PermissionReply::Always),
        ));
        return after_permission(cx, PermissionReply::Always, then);
    }
    Flow::Wait(Waiting::Permission { permission, then })
}

/// Emits `permission.resolved` for `reply`, and remembers an `always`.
pub(crate) fn resolve_permission(
    state: &mut State,
    permission: &Permission,
    reply: PermissionReply,
    out: &mut Actions,
) {
    if reply == PermissionReply::Always {
        state.allowed_for_session.insert(permission.action.clone());
    }
    out.emit(event::permission_resolved(permission.resolved(reply)));
}

/// The rest of a turn whose permission request was answered.
pub(crate) fn after_permission(
    cx: &mut Ctx,
    reply: PermissionReply,
    then: AfterPermission,
) -> Flow {
    match (then, reply) {
        (AfterPermission::Report { command } | AfterPermission::ToolSequence { command }, PermissionReply::Reject) => {
            say(cx, &format!("Permission rejected: I did not run `{command}`."))
        }
        (AfterPermission::ToolSequence { .. }, _) => showcase::tool(cx),
        (AfterPermission::Report { command }, PermissionReply::Once) => {
            say(cx, &format!("Permission granted once: I may run `{command}`."))
        }
        (AfterPermission::Report { command }, PermissionReply::Always) => say(
            cx,
            &format!("Permission granted for this session: I may run `{command}`, and will not ask again."),
        ),
    }
}

/// Emits `question.requested` and waits for the answer.
fn ask(cx: &mut Ctx, question: Question) -> Flow {
    cx.out.emit(event::question_requested(question.clone()));
    Flow::Wait(Waiting::Question { question })
}

/// Emits `question.resolved`: answered with `answers`, or rejected when `None`.
pub(crate) fn resolve_question(
    question: &Question,
    answers: Option<&[Vec<String>]>,
    out: &mut Actions,
) -> Question {
    let resolved = match answers {
        Some(answers) => question.answered(answers),
        None => question.rejected(),
    };
    out.emit(event::question_resolved(resolved.clone()));
    resolved
}

/// The rest of a turn whose question was answered or rejected.
pub(crate) fn after_question(cx: &mut Ctx, resolved: &Question) -> Flow {
    match (&resolved.status, &resolved.response) {
        (QuestionStatus::Rejected, _) => say(cx, "You declined to answer."),
        (_, Some(response)) => say(cx, &format!("You answered: {response}.")),
        (_, None) => say(cx, "You answered without choosing an option."),
    }
}

/// Stops what an interrupted turn waits for and closes what it left open: a pending
/// request is resolved as rejected, a process killed, a timer cancelled, and the
/// in-progress item completed as failed with what it had so far.
pub(crate) fn abort(turn: &mut TurnInfo, waiting: Waiting, out: &mut Actions) {
    match waiting {
        Waiting::Permission { permission, .. } => {
            out.emit(event::permission_resolved(
                permission.resolved(PermissionReply::Reject),
            ));
        }
        Waiting::Question { question } => {
            out.emit(event::question_resolved(question.rejected()));
        }
        Waiting::Shell {
            process_id,
            call_id,
            item_id,
            stdout,
            ..
        } => {
            out.kill(process_id).emit(event::item_completed(
                item::tool_result(item_id, call_id, stdout).failed(),
            ));
        }
        Waiting::Slow {
            timer_id,
            item_id,
            text,
            ..
        } => {
            turn.output_tokens += text::word_count(&text);
            out.cancel_timer(timer_id).emit(event::item_completed(
                item::assistant_text(item_id, text).failed(),
            ));
        }
    }
}
