//! JSON with comments and trailing commas, as several agents read their config
//! files (OpenCode's `opencode.jsonc`, Pi's `models.json`): [`to_json`] makes such
//! a text plain JSON for `serde_json`.

/// `text` without its `//` and `/* */` comments and without a comma that closes an
/// array or object; strings are left as they are, and every line break stays, so a
/// parse error names the line of the original.
pub fn to_json(text: &str) -> String {
    drop_trailing_commas(&drop_comments(text))
}

/// `text` with each comment outside strings made blank (its line breaks kept).
fn drop_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => copy_string(&mut chars, &mut out),
            '/' if chars.peek() == Some(&'/') => {
                while chars.next_if(|next| *next != '\n').is_some() {}
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut last = ' ';
                for inner in chars.by_ref() {
                    if inner == '\n' {
                        out.push('\n');
                    }
                    if last == '*' && inner == '/' {
                        break;
                    }
                    last = inner;
                }
            }
            _ => out.push(c),
        }
    }
    out
}

/// `text` (without comments) with each comma dropped that only whitespace separates
/// from a `]` or `}`.
fn drop_trailing_commas(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => copy_string(&mut chars, &mut out),
            ',' => {
                let rest = chars.clone().find(|next| !next.is_whitespace());
                if !matches!(rest, Some(']' | '}')) {
                    out.push(',');
                }
            }
            _ => out.push(c),
        }
    }
    out
}

/// Copies a JSON string whose opening quote was just read, through its closing one.
fn copy_string(chars: &mut std::iter::Peekable<std::str::Chars<'_>>, out: &mut String) {
    out.push('"');
    while let Some(c) = chars.next() {
        out.push(c);
        match c {
            '\\' => out.extend(chars.next()),
            '"' => return,
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::to_json;

    #[test]
    fn comments_and_trailing_commas_go_strings_stay() {
        let text = "{\n  // a comment\n  \"a\": \"x // not a comment, }\", /* b\n */ \"b\": [1, 2,],\n  \"c\": \"q\\\"/*\",\n}\n";
        let json: serde_json::Value = serde_json::from_str(&to_json(text)).unwrap();
        assert_eq!(
            json,
            serde_json::json!({ "a": "x // not a comment, }", "b": [1, 2], "c": "q\"/*" })
        );
        assert_eq!(to_json(text).lines().count(), text.lines().count());
    }
}
