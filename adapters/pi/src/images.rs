//! Image attachments. Pi's `prompt` takes images inline (base64 with a MIME type),
//! and an adapter cannot read files, so each image is read by a helper process
//! (`node`, which Pi itself runs on) that prints the file in base64 on one line. The
//! prompt is written once every image is read; an image that cannot be read fails
//! the turn.

use sandbox_agent_adapter_kit::prelude::*;

use crate::state::{Image, Prompt};

/// The helper's script: the file named by its argument, base64, one line.
const READ_SCRIPT: &str =
    "process.stdout.write(require('fs').readFileSync(process.argv[1]).toString('base64')+'\\n')";

/// The prompt of a message: its text, attached files listed by path after it (Pi's
/// RPC prompt takes no files; its tools read them), and its images to read.
pub(crate) fn prompt(request_id: String, parts: &[MessagePart], ids: &mut IdCounter) -> Prompt {
    let files: Vec<&str> = parts
        .iter()
        .filter_map(|part| match part {
            MessagePart::File(file) => Some(file.path.as_str()),
            _ => None,
        })
        .collect();
    let text = text::with_attached_files(text::message_text(parts), &files);
    let images = parts
        .iter()
        .filter_map(|part| match part {
            MessagePart::Image(image) => Some(Image {
                path: image.path.clone(),
                mime: image
                    .mime
                    .clone()
                    .unwrap_or_else(|| mime_of(&image.path).to_owned()),
                process_id: format!("image_{}", ids.next_number("image")),
                data: None,
            }),
            _ => None,
        })
        .collect();
    Prompt {
        request_id,
        text,
        images,
        sent: false,
    }
}

/// The helper processes that read the prompt's images.
pub(crate) fn readers(prompt: &Prompt) -> Vec<SpawnRequest> {
    prompt
        .images
        .iter()
        .map(|image| {
            SpawnRequest::command(
                image.process_id.clone(),
                ["node", "-e", READ_SCRIPT, image.path.as_str()],
            )
        })
        .collect()
}

/// True when every image of the prompt is read.
pub(crate) fn all_read(prompt: &Prompt) -> bool {
    prompt.images.iter().all(|image| image.data.is_some())
}

/// The MIME type of an image file by its extension (PNG when unknown).
fn mime_of(path: &str) -> &'static str {
    let extension = path.rsplit('.').next().unwrap_or_default();
    match extension.to_ascii_lowercase().as_str() {
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        _ => "image/png",
    }
}
