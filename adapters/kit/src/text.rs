//! Small text helpers: a message's text, words, streaming chunks, raw payloads,
//! version words.

use crate::types::MessagePart;

/// The text of a user message: its `text` parts joined with newlines (attachments are
/// left out).
pub fn message_text(parts: &[MessagePart]) -> String {
    let texts: Vec<&str> = parts
        .iter()
        .filter_map(|part| match part {
            MessagePart::Text(text) => Some(text.as_str()),
            _ => None,
        })
        .collect();
    texts.join("\n")
}

/// The paths of a message's attachments (images and files), in order.
pub fn attachment_paths(parts: &[MessagePart]) -> Vec<&str> {
    parts
        .iter()
        .filter_map(|part| match part {
            MessagePart::Image(a) | MessagePart::File(a) => Some(a.path.as_str()),
            MessagePart::Text(_) => None,
        })
        .collect()
}

/// `text`, then the `paths` of the message's attached files listed after it
/// (`Attached files:` and a `- path` line each): the prompt of an agent that takes
/// text only and opens the files with its own tools.
///
/// ```
/// let prompt = sandbox_agent_adapter_kit::text::with_attached_files("Fix it".into(), &["/w/a.rs"]);
/// assert_eq!(prompt, "Fix it\n\nAttached files:\n- /w/a.rs");
/// ```
pub fn with_attached_files(mut text: String, paths: &[&str]) -> String {
    if paths.is_empty() {
        return text;
    }
    if !text.is_empty() {
        text.push_str("\n\n");
    }
    text.push_str("Attached files:");
    for path in paths {
        text.push_str("\n- ");
        text.push_str(path);
    }
    text
}

/// A command-line option and its value, when there is a value (none: nothing), for
/// `argv.extend(text::flag("--model", config.chosen_model()))`.
pub fn flag(name: &str, value: Option<&str>) -> Vec<String> {
    value
        .map(|value| vec![name.to_owned(), value.to_owned()])
        .unwrap_or_default()
}

/// Splits `text` into its first whitespace-separated word, lowercased, and the rest
/// with surrounding whitespace trimmed (inner whitespace kept): how scripted agents
/// read a command.
///
/// ```
/// let (command, rest) = sandbox_agent_adapter_kit::text::command("  Shell  ls -la\n");
/// assert_eq!((command.as_str(), rest), ("shell", "ls -la"));
/// ```
pub fn command(text: &str) -> (String, &str) {
    let text = text.trim_start();
    let end = text.find(char::is_whitespace).unwrap_or(text.len());
    (text[..end].to_lowercase(), text[end..].trim())
}

/// The number of whitespace-separated words in `text`.
pub fn word_count(text: &str) -> u64 {
    text.split_whitespace().count() as u64
}

/// Cuts `text` into at most `pieces` consecutive chunks of about equal length, at
/// character boundaries, for simulating a streamed message. The chunks joined give
/// `text` back; an empty text gives no chunks.
///
/// ```
/// let chunks = sandbox_agent_adapter_kit::text::chunks("hello world", 3);
/// assert_eq!(chunks, ["hell", "o wo", "rld"]);
/// ```
pub fn chunks(text: &str, pieces: usize) -> Vec<&str> {
    let chars = text.chars().count();
    if chars == 0 {
        return Vec::new();
    }
    let size = chars.div_ceil(pieces.max(1));
    let mut out = Vec::new();
    let mut start = 0;
    let mut count = 0;
    for (index, _) in text.char_indices() {
        if count == size {
            out.push(&text[start..index]);
            start = index;
            count = 0;
        }
        count += 1;
    }
    out.push(&text[start..]);
    out
}

/// A native payload as the JSON text an event's `raw` carries: `line` itself when it
/// is JSON, otherwise `line` as a JSON string.
///
/// ```
/// use sandbox_agent_adapter_kit::text::raw_json;
/// assert_eq!(raw_json(r#"{"a":1}"#), r#"{"a":1}"#);
/// assert_eq!(raw_json("not json"), r#""not json""#);
/// ```
pub fn raw_json(line: &str) -> String {
    match serde_json::from_str::<serde::de::IgnoredAny>(line) {
        Ok(_) => line.to_owned(),
        Err(_) => serde_json::Value::String(line.to_owned()).to_string(),
    }
}

/// The first whitespace-separated word of `output` that looks like a version, without
/// a leading `v`: two or more dot-separated numbers, optionally followed by a
/// pre-release suffix after `-` (`1.2.3-beta.1`). For [`crate::Adapter::parse_version`]
/// on what `--version` printed, and for registry documents that hold a bare version.
///
/// ```
/// use sandbox_agent_adapter_kit::text::version_word;
///
/// assert_eq!(version_word("2.1.197 (Claude Code)").as_deref(), Some("2.1.197"));
/// assert_eq!(version_word("codex-cli 0.169.0\n").as_deref(), Some("0.169.0"));
/// assert_eq!(version_word("amp v0.0.1-beta.2").as_deref(), Some("0.0.1-beta.2"));
/// assert_eq!(version_word("version 3"), None);
/// assert_eq!(version_word("1..2 x.1"), None);
/// ```
pub fn version_word(output: &str) -> Option<String> {
    output
        .split_whitespace()
        .map(|word| word.strip_prefix('v').unwrap_or(word))
        .find(|word| {
            let (core, suffix) = word.split_once('-').unwrap_or((word, ""));
            let mut numbers = core.split('.');
            numbers.clone().count() >= 2
                && numbers.all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
                && suffix
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'.')
        })
        .map(str::to_owned)
}
