//! Constructors for transcript items, and builder methods on [`Item`].
//!
//! Constructors return a *completed* item; adjust it with the builder methods
//! ([`Item::in_progress`], [`Item::failed`], [`Item::with_parent`]...):
//!
//! ```
//! use sandbox_agent_adapter_kit::prelude::*;
//!
//! let call = item::tool_call("itm_3", "bash", r#"{"command":"ls"}"#, "call_1").in_progress();
//! assert_eq!(call.status, ItemStatus::InProgress);
//! let result = item::tool_result("itm_4", "call_1", "README.md\n").failed().with_parent("itm_3");
//! assert_eq!(result.parent_id.as_deref(), Some("itm_3"));
//! ```

use crate::types::{
    ContentPart, FileAction, FileRefPart, ImagePart, Item, ItemKind, ItemRole, ItemStatus,
    MessagePart, ReasoningPart, ReasoningVisibility, StatusPart, ToolCallPart, ToolResultPart,
};

impl Item {
    /// An item with every field given and no native or parent id.
    pub fn new(
        item_id: impl Into<String>,
        kind: ItemKind,
        role: Option<ItemRole>,
        status: ItemStatus,
        content: Vec<ContentPart>,
    ) -> Self {
        Self {
            item_id: item_id.into(),
            native_item_id: None,
            parent_id: None,
            kind,
            role,
            status,
            content,
        }
    }

    /// The same item with another status.
    pub fn with_status(mut self, status: ItemStatus) -> Self {
        self.status = status;
        self
    }

    /// The same item, still streaming or waiting.
    pub fn in_progress(self) -> Self {
        self.with_status(ItemStatus::InProgress)
    }

    /// The same item, final.
    pub fn completed(self) -> Self {
        self.with_status(ItemStatus::Completed)
    }

    /// The same item, ended in failure (tool error, interrupted turn).
    pub fn failed(self) -> Self {
        self.with_status(ItemStatus::Failed)
    }

    /// The same item with no content (an `item.started` whose text will stream).
    /// A reasoning item keeps an empty reasoning part: a reader of its deltas
    /// knows from its start that they are reasoning, not the answer.
    pub fn without_content(mut self) -> Self {
        let reasoning = self.content.iter().find_map(|part| match part {
            ContentPart::Reasoning(reasoning) => Some(reasoning.visibility),
            _ => None,
        });
        self.content.clear();
        if let Some(visibility) = reasoning {
            self.content.push(reasoning_part("", visibility));
        }
        self
    }

    /// The same item with the agent's own id for it.
    pub fn with_native_id(mut self, native_item_id: impl Into<String>) -> Self {
        self.native_item_id = Some(native_item_id.into());
        self
    }

    /// The same item, attached to a parent item (a tool call's message, a subagent's
    /// parent call).
    pub fn with_parent(mut self, parent_id: impl Into<String>) -> Self {
        self.parent_id = Some(parent_id.into());
        self
    }

    /// The same item with one more content part.
    pub fn with_part(mut self, part: ContentPart) -> Self {
        self.content.push(part);
        self
    }

    /// The item's `text` parts joined (what its deltas add up to for a text message).
    pub fn text(&self) -> String {
        self.content
            .iter()
            .filter_map(|part| match part {
                ContentPart::Text(text) => Some(text.as_str()),
                _ => None,
            })
            .collect()
    }
}

/// The user's message as a completed `user` message item: text parts become `text`,
/// images `image`, attached files `file_ref` with action `read`.
pub fn user_message(item_id: impl Into<String>, parts: &[MessagePart]) -> Item {
    let content = parts
        .iter()
        .map(|part| match part {
            MessagePart::Text(text) => ContentPart::Text(text.clone()),
            MessagePart::Image(attachment) => ContentPart::Image(ImagePart {
                path: attachment.path.clone(),
                mime: attachment.mime.clone(),
            }),
            MessagePart::File(attachment) => ContentPart::FileRef(FileRefPart {
                path: attachment.path.clone(),
                action: FileAction::Read,
                diff: None,
            }),
        })
        .collect();
    Item::new(
        item_id,
        ItemKind::Message,
        Some(ItemRole::User),
        ItemStatus::Completed,
        content,
    )
}

/// A completed assistant message with one text part.
pub fn assistant_text(item_id: impl Into<String>, text: impl Into<String>) -> Item {
    assistant_message(item_id, vec![ContentPart::Text(text.into())])
}

/// A completed assistant message with the given parts (text, reasoning, json, image...).
pub fn assistant_message(item_id: impl Into<String>, content: Vec<ContentPart>) -> Item {
    Item::new(
        item_id,
        ItemKind::Message,
        Some(ItemRole::Assistant),
        ItemStatus::Completed,
        content,
    )
}

/// A completed assistant message holding one reasoning ("thinking") part.
pub fn reasoning(
    item_id: impl Into<String>,
    text: impl Into<String>,
    visibility: ReasoningVisibility,
) -> Item {
    assistant_message(item_id, vec![reasoning_part(text, visibility)])
}

/// A reasoning content part.
pub fn reasoning_part(text: impl Into<String>, visibility: ReasoningVisibility) -> ContentPart {
    ContentPart::Reasoning(ReasoningPart {
        text: text.into(),
        visibility,
    })
}

/// A completed system message with one text part.
pub fn system_text(item_id: impl Into<String>, text: impl Into<String>) -> Item {
    Item::new(
        item_id,
        ItemKind::System,
        Some(ItemRole::System),
        ItemStatus::Completed,
        vec![ContentPart::Text(text.into())],
    )
}

/// A completed `status` item with one status part.
pub fn status(
    item_id: impl Into<String>,
    label: impl Into<String>,
    detail: Option<String>,
) -> Item {
    Item::new(
        item_id,
        ItemKind::Status,
        Some(ItemRole::Assistant),
        ItemStatus::Completed,
        vec![ContentPart::Status(StatusPart {
            label: label.into(),
            detail,
        })],
    )
}

/// A completed `tool_call` item (role assistant): the agent invoking `name` with
/// `arguments` (JSON text); `call_id` links it to its result.
pub fn tool_call(
    item_id: impl Into<String>,
    name: impl Into<String>,
    arguments: impl Into<String>,
    call_id: impl Into<String>,
) -> Item {
    Item::new(
        item_id,
        ItemKind::ToolCall,
        Some(ItemRole::Assistant),
        ItemStatus::Completed,
        vec![ContentPart::ToolCall(ToolCallPart {
            name: name.into(),
            arguments: arguments.into(),
            call_id: call_id.into(),
        })],
    )
}

/// A completed `tool_result` item (role tool) with the output of call `call_id`.
pub fn tool_result(
    item_id: impl Into<String>,
    call_id: impl Into<String>,
    output: impl Into<String>,
) -> Item {
    Item::new(
        item_id,
        ItemKind::ToolResult,
        Some(ItemRole::Tool),
        ItemStatus::Completed,
        vec![tool_result_part(call_id, output)],
    )
}

/// A tool-result content part.
pub fn tool_result_part(call_id: impl Into<String>, output: impl Into<String>) -> ContentPart {
    ContentPart::ToolResult(ToolResultPart {
        call_id: call_id.into(),
        output: output.into(),
    })
}

/// An image part for an image the agent received inline (a tool's screenshot, say):
/// its `path` is a `data:` URL holding the base64 bytes, which a browser shows as is.
pub fn inline_image(mime: &str, base64: &str) -> ContentPart {
    ContentPart::Image(ImagePart {
        path: format!("data:{mime};base64,{base64}"),
        mime: Some(mime.to_owned()),
    })
}

/// The inline images of MCP content blocks (`{"type": "image", "data", "mimeType"}`,
/// as an MCP tool's result holds them) as [`inline_image`] parts.
pub fn mcp_images(blocks: &serde_json::Value) -> Vec<ContentPart> {
    blocks
        .as_array()
        .into_iter()
        .flatten()
        .filter(|block| block["type"] == "image")
        .filter_map(|block| {
            let data = block["data"].as_str()?;
            let mime = block["mimeType"].as_str().unwrap_or("image/png");
            Some(inline_image(mime, data))
        })
        .collect()
}

/// A file-reference content part (a file read, written or patched, with its diff).
pub fn file_ref(path: impl Into<String>, action: FileAction, diff: Option<String>) -> ContentPart {
    ContentPart::FileRef(FileRefPart {
        path: path.into(),
        action,
        diff,
    })
}
