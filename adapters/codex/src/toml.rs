//! Just enough TOML to read Codex's `config.toml` (the adapter has no TOML crate):
//! tables and arrays of tables, dotted and quoted keys, strings of the four kinds,
//! booleans, numbers, dates (kept as their text), arrays and inline tables, read
//! into a JSON value. It is lenient: some documents TOML rejects read here.

use serde_json::{Map, Value};

/// The document as a JSON object, or where and why it cannot be read.
pub(crate) fn parse(text: &str) -> Result<Value, String> {
    let mut parser = Parser {
        text: text.chars().collect(),
        at: 0,
    };
    parser
        .document()
        .map_err(|why| format!("line {}: {why}", parser.line()))
}

/// A cursor over the document.
struct Parser {
    text: Vec<char>,
    at: usize,
}

impl Parser {
    fn peek(&self) -> Option<char> {
        self.text.get(self.at).copied()
    }

    fn peek_is(&self, expected: &str) -> bool {
        expected
            .chars()
            .enumerate()
            .all(|(offset, c)| self.text.get(self.at + offset) == Some(&c))
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.at += 1;
        Some(c)
    }

    fn expect(&mut self, expected: char) -> Result<(), String> {
        match self.peek() {
            Some(c) if c == expected => {
                self.at += 1;
                Ok(())
            }
            Some(c) => Err(format!("expected `{expected}`, found {c:?}")),
            None => Err(format!("expected `{expected}` at the end")),
        }
    }

    /// The line of the cursor, from 1.
    fn line(&self) -> usize {
        1 + self.text[..self.at.min(self.text.len())]
            .iter()
            .filter(|c| **c == '\n')
            .count()
    }

    /// Skips spaces and tabs.
    fn blanks(&mut self) {
        while matches!(self.peek(), Some(' ' | '\t')) {
            self.at += 1;
        }
    }

    /// Skips whitespace, line breaks and comments.
    fn gaps(&mut self) {
        loop {
            match self.peek() {
                Some(c) if c.is_whitespace() => self.at += 1,
                Some('#') => self.comment(),
                _ => return,
            }
        }
    }

    fn comment(&mut self) {
        while !matches!(self.peek(), None | Some('\n')) {
            self.at += 1;
        }
    }

    /// The rest of a line after a key/value pair or a table header.
    fn end_of_line(&mut self) -> Result<(), String> {
        self.blanks();
        if self.peek() == Some('#') {
            self.comment();
        }
        match self.peek() {
            None | Some('\n') => Ok(()),
            Some('\r') if self.peek_is("\r\n") => Ok(()),
            Some(c) => Err(format!("unexpected `{c}`")),
        }
    }

    fn document(&mut self) -> Result<Value, String> {
        let mut root = Value::Object(Map::new());
        let mut table: Vec<String> = Vec::new();
        loop {
            self.gaps();
            match self.peek() {
                None => return Ok(root),
                Some('[') => {
                    self.at += 1;
                    let array = self.peek() == Some('[');
                    if array {
                        self.at += 1;
                    }
                    self.blanks();
                    table = self.key()?;
                    self.blanks();
                    self.expect(']')?;
                    if array {
                        self.expect(']')?;
                        let (last, parent) = table.split_last().ok_or("an empty table name")?;
                        let entry = table_at(&mut root, parent)?
                            .entry(last.clone())
                            .or_insert_with(|| Value::Array(Vec::new()));
                        let Value::Array(items) = entry else {
                            return Err(format!("`{last}` is not an array of tables"));
                        };
                        items.push(Value::Object(Map::new()));
                    } else {
                        table_at(&mut root, &table)?;
                    }
                }
                Some(_) => {
                    let key = self.key()?;
                    self.blanks();
                    self.expect('=')?;
                    self.blanks();
                    let value = self.value()?;
                    insert(table_at(&mut root, &table)?, &key, value)?;
                }
            }
            self.end_of_line()?;
        }
    }

    /// A dotted key: bare or quoted parts.
    fn key(&mut self) -> Result<Vec<String>, String> {
        let mut parts = Vec::new();
        loop {
            self.blanks();
            let part = match self.peek() {
                Some('"') => self.basic_string()?,
                Some('\'') => self.literal_string()?,
                _ => {
                    let start = self.at;
                    while self
                        .peek()
                        .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
                    {
                        self.at += 1;
                    }
                    if self.at == start {
                        return Err("expected a key".into());
                    }
                    self.text[start..self.at].iter().collect()
                }
            };
            parts.push(part);
            self.blanks();
            if self.peek() != Some('.') {
                return Ok(parts);
            }
            self.at += 1;
        }
    }

    fn value(&mut self) -> Result<Value, String> {
        match self.peek() {
            Some('"') => self.basic_string().map(Value::String),
            Some('\'') => self.literal_string().map(Value::String),
            Some('[') => self.array(),
            Some('{') => self.inline_table(),
            Some(_) => Ok(self.scalar()),
            None => Err("a value is missing".into()),
        }
    }

    /// A `"..."` or `"""..."""` string, its escapes resolved.
    fn basic_string(&mut self) -> Result<String, String> {
        let multiline = self.opening("\"\"\"");
        let mut out = String::new();
        loop {
            if multiline && self.peek_is("\"\"\"") {
                self.at += 3;
                return Ok(out);
            }
            match self.bump() {
                Some('"') if !multiline => return Ok(out),
                Some('\\') => self.escape(&mut out, multiline)?,
                Some('\n') if !multiline => return Err(self.unclosed()),
                Some(c) => out.push(c),
                None => return Err("a string is not closed".into()),
            }
        }
    }

    /// A `'...'` or `'''...'''` string, taken as it is.
    fn literal_string(&mut self) -> Result<String, String> {
        let multiline = self.opening("'''");
        let mut out = String::new();
        loop {
            if multiline && self.peek_is("'''") {
                self.at += 3;
                return Ok(out);
            }
            match self.bump() {
                Some('\'') if !multiline => return Ok(out),
                Some('\n') if !multiline => return Err(self.unclosed()),
                Some(c) => out.push(c),
                None => return Err("a string is not closed".into()),
            }
        }
    }

    /// The error of a one-line string that reaches the end of its line (read).
    fn unclosed(&mut self) -> String {
        self.at -= 1;
        "a string ends at the line".into()
    }

    /// Reads a string's opening quote(s); true for a multi-line one, whose first
    /// line break is dropped.
    fn opening(&mut self, triple: &str) -> bool {
        if self.peek_is(triple) {
            self.at += 3;
            if self.peek_is("\r\n") {
                self.at += 2;
            } else if self.peek() == Some('\n') {
                self.at += 1;
            }
            return true;
        }
        self.at += 1;
        false
    }

    /// An escape after its backslash.
    fn escape(&mut self, out: &mut String, multiline: bool) -> Result<(), String> {
        let c = self.bump().ok_or("a string is not closed")?;
        let simple = match c {
            'b' => Some('\u{8}'),
            't' => Some('\t'),
            'n' => Some('\n'),
            'f' => Some('\u{c}'),
            'r' => Some('\r'),
            'e' => Some('\u{1b}'),
            '"' => Some('"'),
            '\\' => Some('\\'),
            _ => None,
        };
        if let Some(simple) = simple {
            out.push(simple);
            return Ok(());
        }
        match c {
            'u' | 'U' | 'x' => {
                let digits = match c {
                    'u' => 4,
                    'U' => 8,
                    _ => 2,
                };
                let end = (self.at + digits).min(self.text.len());
                let hex: String = self.text[self.at..end].iter().collect();
                self.at = end;
                let code = u32::from_str_radix(&hex, 16).map_err(|_| "a bad escape")?;
                out.push(char::from_u32(code).ok_or("a bad escape")?);
                Ok(())
            }
            // A line-ending backslash joins the lines of a multi-line string.
            c if multiline && c.is_whitespace() => {
                while self.peek().is_some_and(char::is_whitespace) {
                    self.at += 1;
                }
                Ok(())
            }
            c => Err(format!("an unknown escape `\\{c}`")),
        }
    }

    fn array(&mut self) -> Result<Value, String> {
        self.at += 1;
        let mut items = Vec::new();
        loop {
            self.gaps();
            if self.peek() == Some(']') {
                self.at += 1;
                return Ok(Value::Array(items));
            }
            items.push(self.value()?);
            self.gaps();
            match self.bump() {
                Some(',') => {}
                Some(']') => return Ok(Value::Array(items)),
                _ => return Err("expected `,` or `]` in an array".into()),
            }
        }
    }

    fn inline_table(&mut self) -> Result<Value, String> {
        self.at += 1;
        let mut table = Map::new();
        loop {
            self.gaps();
            if self.peek() == Some('}') {
                self.at += 1;
                return Ok(Value::Object(table));
            }
            let key = self.key()?;
            self.expect('=')?;
            self.blanks();
            let value = self.value()?;
            insert(&mut table, &key, value)?;
            self.gaps();
            match self.bump() {
                Some(',') => {}
                Some('}') => return Ok(Value::Object(table)),
                _ => return Err("expected `,` or `}` in an inline table".into()),
            }
        }
    }

    /// A boolean, a number, or a date or time (kept as its text; a date and time
    /// must be joined by `T`).
    fn scalar(&mut self) -> Value {
        let start = self.at;
        while !matches!(self.peek(), None | Some(',' | ']' | '}' | '#'))
            && !self.peek().is_some_and(char::is_whitespace)
        {
            self.at += 1;
        }
        let text: String = self.text[start..self.at].iter().collect();
        let text = text.trim();
        match text {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            _ => {
                let digits = text.replace('_', "");
                if let Ok(integer) = digits.parse::<i64>() {
                    Value::from(integer)
                } else if let Some(float) = digits
                    .parse::<f64>()
                    .ok()
                    .and_then(serde_json::Number::from_f64)
                {
                    Value::Number(float)
                } else {
                    Value::String(text.to_owned())
                }
            }
        }
    }
}

/// The table at `path` under `root`, made when missing; an array of tables stands
/// for its last table, as in TOML.
fn table_at<'v>(
    root: &'v mut Value,
    path: &[String],
) -> Result<&'v mut Map<String, Value>, String> {
    let mut value = root;
    for part in path {
        let Value::Object(table) = value else {
            return Err(format!("`{part}` is under a value that is no table"));
        };
        value = table
            .entry(part.clone())
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Array(items) = value {
            value = items.last_mut().ok_or("an empty array of tables")?;
        }
    }
    match value {
        Value::Object(table) => Ok(table),
        _ => Err(format!("`{}` is no table", path.join("."))),
    }
}

/// Sets the dotted `key` of `table` to `value`.
fn insert(table: &mut Map<String, Value>, key: &[String], value: Value) -> Result<(), String> {
    let (last, parents) = key.split_last().ok_or("an empty key")?;
    let mut wrapped = Value::Object(std::mem::take(table));
    let result = table_at(&mut wrapped, parents).map(|inner| {
        inner.insert(last.clone(), value);
    });
    if let Value::Object(back) = wrapped {
        *table = back;
    }
    result
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::parse;

    #[test]
    fn a_codex_config_reads_as_json() {
        let text = r#"
# Codex
model = "gpt-5.5"   # the model
model_provider = 'proxy'
profile = "work"
approvals.policy = "on-request"
notify = ["notify-send", "done",
  "x"]
developer_instructions = """
Be brief.\
   Really."""
raw = '''C:\path'''
count = 1_000
ratio = 0.5
when = 1979-05-27T07:32:00Z
tui = { theme = "dark", bell = false }

[model_providers.proxy]
name = "Proxy \"one\" \u00e9"
base_url = "https://proxy.test/v1"
env_key = "PROXY_KEY"

[profiles.work]
model_provider = "proxy"

[projects."/home/u/x y"]
trust_level = "trusted"

[[skills]]
name = "a"
[[skills]]
name = "b"
[skills.extra]
on = true
"#;
        let config = parse(text).unwrap();
        assert_eq!(config["model_provider"], "proxy");
        assert_eq!(config["approvals"]["policy"], "on-request");
        assert_eq!(config["notify"], json!(["notify-send", "done", "x"]));
        assert_eq!(config["developer_instructions"], "Be brief.Really.");
        assert_eq!(config["raw"], "C:\\path");
        assert_eq!(config["count"], 1000);
        assert_eq!(config["ratio"], 0.5);
        assert_eq!(config["when"], "1979-05-27T07:32:00Z");
        assert_eq!(config["tui"], json!({ "theme": "dark", "bell": false }));
        let proxy = &config["model_providers"]["proxy"];
        assert_eq!(proxy["name"], "Proxy \"one\" é");
        assert_eq!(proxy["base_url"], "https://proxy.test/v1");
        assert_eq!(config["profiles"]["work"]["model_provider"], "proxy");
        assert_eq!(config["projects"]["/home/u/x y"]["trust_level"], "trusted");
        assert_eq!(
            config["skills"],
            json!([{ "name": "a" }, { "name": "b", "extra": { "on": true } }])
        );
    }

    #[test]
    fn what_cannot_be_read_says_where() {
        for (text, line) in [
            ("a = \"open\nb = 1\n", "line 1"),
            ("a = 1\n[t\n", "line 2"),
            ("a = 1 2\n", "line 1"),
            ("x = 1\nx.y = 2\n", "line 2"),
        ] {
            let error = parse(text).unwrap_err();
            assert!(error.starts_with(line), "{text:?}: {error}");
        }
    }
}
