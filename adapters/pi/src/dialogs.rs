//! Extension UI requests (`extension_ui_request`): Pi itself never asks the user
//! anything, but its extensions can, through dialogs that wait for an
//! `extension_ui_response`.
//!
//! | method | universal |
//! |---|---|
//! | `select` | `question.requested` with its options; the answer is the chosen option |
//! | `confirm` | `question.requested` (title and message) with options `yes`/`no` |
//! | `input`, `editor` | `question.requested` without options; the answer is the text |
//! | `notify` | a `status` item (label `notify`) |
//! | `setStatus`, `setWidget`, `setTitle`, `set_editor_text` | nothing (terminal UI only) |
//!
//! A declined question, a cancelled turn and the end of the turn answer
//! `cancelled: true`.

use crate::native::UiRequest;
use crate::protocol;
use crate::state::{Dialog, Out};
use sandbox_agent_adapter_kit::prelude::*;

/// An `extension_ui_request` line.
pub(crate) fn request(o: &mut Out, message: UiRequest) {
    let method = message.method.as_str();
    let title = message.title.as_str();
    let (prompt, options): (String, Vec<String>) = match method {
        "select" => {
            let options = message.options.iter().filter_map(|o| o.get().cloned());
            (title.to_owned(), options.collect())
        }
        "confirm" => {
            let text = match message.message.as_str() {
                "" => title.to_owned(),
                more => format!("{title}\n\n{more}"),
            };
            (text, vec!["yes".to_owned(), "no".to_owned()])
        }
        "input" | "editor" => (title.to_owned(), Vec::new()),
        "notify" => {
            let detail = Some(message.message.clone());
            let item = item::status(o.item_id(), "notify", detail);
            o.whole(item);
            return;
        }
        "setStatus" | "setWidget" | "setTitle" | "set_editor_text" => return,
        other => {
            o.unparsed(&format!("unknown extension UI method {other:?}"));
            return;
        }
    };
    let id = o.state.header.ids.next("question");
    let question = Question::requested(id.clone(), prompt, options);
    o.emit(event::question_requested(question.clone()));
    let dialog = Dialog {
        request_id: message.id.clone(),
        method: method.to_owned(),
        question,
    };
    o.state.questions.insert(id, dialog);
}

/// The client's answer (`None`: declined) to question `id`.
pub(crate) fn answer(o: &mut Out, id: &str, answers: Option<&[Vec<String>]>) -> Result<(), String> {
    let dialog = o
        .state
        .questions
        .remove(id)
        .ok_or_else(|| format!("no pending question {id:?}"))?;
    let chosen =
        answers.map(|answers| answers.iter().flatten().next().cloned().unwrap_or_default());
    o.write(&protocol::dialog_response(
        &dialog.request_id,
        &dialog.method,
        chosen.as_deref(),
    ));
    let resolved = match answers {
        Some(answers) => dialog.question.answered(answers),
        None => dialog.question.rejected(),
    };
    o.emit(event::question_resolved(resolved));
    Ok(())
}

/// Declines every pending dialog (the turn is over or cancelled).
pub(crate) fn decline_all(o: &mut Out) {
    let ids: Vec<String> = o.state.questions.keys().cloned().collect();
    for id in ids {
        // The id comes from the map: the answer cannot fail.
        let _ = answer(o, &id, None);
    }
}
