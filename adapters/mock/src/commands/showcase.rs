//! The commands that show what the universal schema can carry, each in one call:
//! `demo`, `markdown`, `tool`, `status`, `image`, `unknown`, `reasoning`, `file`,
//! `edit`, `usage`, `error` and `unparsed`.

use sandbox_agent_adapter_kit::prelude::*;
use serde_json::json;

use super::{say, Ctx, Flow, DEFAULT_PERMISSION_COMMAND};

/// The file `file` and `edit` change when none is named.
const DEFAULT_FILE: &str = "notes.md";
/// The line `edit` replaces (what `file` writes by default).
const DEFAULT_FILE_LINE: &str = "Hello from the mock agent.";

const MARKDOWN: &str = "# Markdown Demo

Text with **bold**, *italic*, ***bold italic***, ~~strikethrough~~ and `inline code`.

## Lists

- First item
  - Nested item
- Second item

1. Step one
2. Step two

> A quote with **bold** text.

## Code

```ts
const answer: number = 42;
console.log(`The answer is ${answer}`);
```

## Table

| Left | Right |
|:-----|------:|
| Alpha | 1 |
| Beta | 2 |

## Link

[An example link](https://example.com)

---

End of markdown demo.
";

/// Every fixture in one turn, each announced by a marker message. Its permission and
/// question requests stay pending without holding the turn open.
pub(super) fn demo(cx: &mut Ctx) -> Flow {
    cx.say("Next: system message (system role).");
    let id = cx.item_id();
    cx.whole(item::system_text(id, "System ready for mock events."));
    cx.say("Next: assistant message with deltas, reasoning, and JSON content parts.");
    rich_message(cx);
    cx.say("Next: status item updates.");
    status(cx);
    cx.say("Next: markdown rendering + streaming markdown deltas.");
    markdown(cx);
    cx.say("Next: tool call item.");
    tool(cx);
    cx.say("Next: image output content part.");
    image(cx);
    cx.say("Next: unknown item kind.");
    unknown(cx);
    cx.say("Next: permission requests (pending).");
    let prefix = cx.prefix();
    let command = Permission::requested(
        format!("{prefix}_permission"),
        "command_execution",
        Some(json!({ "tool": "bash", "command": DEFAULT_PERMISSION_COMMAND }).to_string()),
    );
    let file = Permission::requested(
        format!("{prefix}_permission_denied"),
        "file_change",
        Some(json!({ "tool": "edit", "path": format!("{prefix}/deny.txt") }).to_string()),
    );
    for permission in [command, file] {
        cx.out.emit(event::permission_requested(permission.clone()));
        cx.state
            .detached_permissions
            .insert(permission.permission_id.clone(), permission);
    }
    cx.say("Next: question requests (pending).");
    let color = Question::requested(
        format!("{prefix}_question"),
        "Choose a color",
        ["Red", "Blue"],
    );
    let experiment = Question::requested(
        format!("{prefix}_question_reject"),
        "Allow mock experiment?",
        ["Yes", "No"],
    );
    for question in [color, experiment] {
        cx.out.emit(event::question_requested(question.clone()));
        cx.state
            .detached_questions
            .insert(question.question_id.clone(), question);
    }
    cx.say("Next: error and agent.unparsed events.");
    error(cx)
}

/// An assistant message with text, public and private reasoning, and JSON.
pub(super) fn rich_message(cx: &mut Ctx) {
    let content = vec![
        ContentPart::Text("Mock assistant response with rich content.".to_owned()),
        item::reasoning_part("Public reasoning for display.", ReasoningVisibility::Public),
        item::reasoning_part(
            "Private reasoning hidden by default.",
            ReasoningVisibility::Private,
        ),
        ContentPart::Json(json!({ "stage": "analysis", "ok": true }).to_string()),
    ];
    cx.message(content, 2);
}

pub(super) fn markdown(cx: &mut Ctx) -> Flow {
    cx.message(vec![ContentPart::Text(MARKDOWN.to_owned())], 8);
    Flow::Done
}

/// A `mock.search` tool call, then its result: failed on purpose (to show the state),
/// with a file read, a file write and a patch.
pub(super) fn tool(cx: &mut Ctx) -> Flow {
    let prefix = cx.prefix();
    let call_id = cx.state.ids.next("call");
    let call_item = cx.item_id();
    cx.whole(item::tool_call(
        call_item,
        "mock.search",
        r#"{"query":"example"}"#,
        &call_id,
    ));
    let result_item = cx.item_id();
    let result = item::tool_result(result_item, call_id, "mock search results")
        .with_part(item::file_ref(
            format!("{prefix}/readme.md"),
            FileAction::Read,
            None,
        ))
        .with_part(item::file_ref(
            format!("{prefix}/output.txt"),
            FileAction::Write,
            Some("+mock output\n".to_owned()),
        ))
        .with_part(item::file_ref(
            format!("{prefix}/patch.txt"),
            FileAction::Patch,
            Some("@@ -1,1 +1,1 @@\n-old\n+new\n".to_owned()),
        ));
    cx.whole(result.failed());
    Flow::Done
}

pub(super) fn status(cx: &mut Ctx) -> Flow {
    let id = cx.item_id();
    let started = item::status(id.clone(), "Indexing", Some("2 files".to_owned()));
    cx.out
        .emit(event::item_started(started.in_progress()))
        .emit(event::item_completed(item::status(
            id,
            "Indexing",
            Some("Done".to_owned()),
        )));
    Flow::Done
}

pub(super) fn image(cx: &mut Ctx) -> Flow {
    let image = ContentPart::Image(ImagePart {
        path: format!("{}/image.png", cx.prefix()),
        mime: Some("image/png".to_owned()),
    });
    cx.message(
        vec![
            ContentPart::Text("Here is a mock image output.".to_owned()),
            image,
        ],
        1,
    );
    Flow::Done
}

pub(super) fn unknown(cx: &mut Ctx) -> Flow {
    let id = cx.item_id();
    let text = ContentPart::Text("Unknown item kind example.".to_owned());
    cx.whole(Item::new(
        id,
        ItemKind::Unknown,
        Some(ItemRole::Assistant),
        ItemStatus::Completed,
        vec![text],
    ));
    Flow::Done
}

pub(super) fn reasoning(cx: &mut Ctx, topic: &str) -> Flow {
    let topic = if topic.is_empty() {
        "nothing in particular"
    } else {
        topic
    };
    cx.think(&format!(
        "The user asked me to think about {topic}. I will restate it, then answer in one sentence."
    ));
    say(
        cx,
        &format!("I thought about {topic}, and this is my answer."),
    )
}

/// `file` (a new file) or `edit` (a changed line), as a tool call and a result with
/// a `file_ref` part and its unified diff. The mock writes nothing.
pub(super) fn file_change(cx: &mut Ctx, rest: &str, action: FileAction) -> Flow {
    let (path, new_text) = match rest.split_once(char::is_whitespace) {
        Some((path, text)) => (path, text.trim()),
        None if rest.is_empty() => (DEFAULT_FILE, ""),
        None => (rest, ""),
    };
    let (verb, tool) = match action {
        FileAction::Patch => ("edit", "edit"),
        _ => ("write", "write"),
    };
    if cx.planning() {
        return say(
            cx,
            &format!("Plan mode: I would {verb} `{path}` (nothing was changed)."),
        );
    }
    let new_text = match (new_text, action) {
        ("", FileAction::Patch) => "Hello again from the mock agent.",
        ("", _) => DEFAULT_FILE_LINE,
        (text, _) => text,
    };
    let added: Vec<String> = new_text.lines().map(|line| format!("+{line}\n")).collect();
    let diff = match action {
        FileAction::Patch => format!(
            "--- a/{path}\n+++ b/{path}\n@@ -1,1 +1,{} @@\n-{DEFAULT_FILE_LINE}\n{}",
            added.len(),
            added.concat()
        ),
        _ => format!(
            "--- /dev/null\n+++ b/{path}\n@@ -0,0 +1,{} @@\n{}",
            added.len(),
            added.concat()
        ),
    };
    let call_id = cx.state.ids.next("call");
    let arguments = json!({ "path": path, "content": new_text }).to_string();
    let call_item = cx.item_id();
    cx.whole(item::tool_call(call_item, tool, arguments, &call_id));
    let result_item = cx.item_id();
    let done = match action {
        FileAction::Patch => format!("Edited {path}"),
        _ => format!("Wrote {path}"),
    };
    let result = item::tool_result(result_item, call_id, &done).with_part(item::file_ref(
        path,
        action,
        Some(diff),
    ));
    cx.whole(result);
    say(
        cx,
        &format!(
            "{done} ({} line{}).",
            added.len(),
            if added.len() == 1 { "" } else { "s" }
        ),
    )
}

/// The session's usage so far; this turn's `turn.ended` reports every usage field.
pub(super) fn usage(cx: &mut Ctx) -> Flow {
    let totals = cx.state.totals.clone();
    cx.turn.full_usage = true;
    say(
        cx,
        &format!(
            "Usage before this turn: {} turns, {} input tokens, {} output tokens.",
            totals.turns, totals.input_tokens, totals.output_tokens
        ),
    )
}

pub(super) fn error(cx: &mut Ctx) -> Flow {
    let details = json!({ "mock": true }).to_string();
    cx.out.emit(event::error_with_details(
        "Mock error event.",
        Some("mock_error"),
        Some(details),
    ));
    unparsed(cx)
}

pub(super) fn unparsed(cx: &mut Ctx) -> Flow {
    cx.out.emit(event::unparsed(
        "unsupported payload",
        "mock.stream",
        r#"{"raw":"mock"}"#,
    ));
    Flow::Done
}
