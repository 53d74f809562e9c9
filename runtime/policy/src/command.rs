//! A command line split into the simple commands it would run, so that a rule
//! allowing `ls *` does not allow `ls && rm -rf ~`.
//!
//! The split follows the shell's quoting (single and double quotes, backslashes)
//! and cuts at its control operators (`;`, `&`, `&&`, `|`, `||`, `|&`, new
//! lines; not the `&` of a redirection such as `2>&1`). Command substitutions
//! (`$(...)`, backquotes, `<(...)`, `>(...)`) and subshells (`(...)`) are
//! commands of their own, as is what a wrapper runs (`sudo rm x` is also
//! `rm x`; `sh -c '...'` and `eval ...` their line). Shell keywords that open a
//! command (`if`, `then`, `do`, `!`, `{`...) are left out, and so are lines that
//! only close one (`fi`, `done`, `}`...). Each command is given with its
//! leading `NAME=value` assignments left out and its spaces collapsed.

/// Most nested lines (substitutions, `sh -c`) followed; deeper ones are taken
/// as they are written.
const MAX_DEPTH: usize = 8;

/// Keywords that open a command, left out of it.
const OPENERS: &[&str] = &[
    "if", "then", "elif", "else", "do", "while", "until", "!", "{", "time",
];
/// Keywords that only close a compound command.
const CLOSERS: &[&str] = &["fi", "done", "esac", "}"];
/// Programs that run the command that follows their own options: each with
/// its options that take the next word as their value, and how many words it
/// takes before the command (`timeout`'s duration).
const WRAPPERS: &[(&str, &[&str], usize)] = &[
    (
        "sudo",
        &[
            "-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-T", "-U", "--user", "--group",
            "--chdir", "--host", "--prompt",
        ],
        0,
    ),
    ("doas", &["-u", "-C"], 0),
    (
        "env",
        &["-u", "-C", "-S", "--unset", "--chdir", "--split-string"],
        0,
    ),
    ("nice", &["-n", "--adjustment"], 0),
    ("nohup", &[], 0),
    ("timeout", &["-s", "-k", "--signal", "--kill-after"], 1),
    (
        "xargs",
        &[
            "-n",
            "-I",
            "-L",
            "-d",
            "-P",
            "-s",
            "-a",
            "-E",
            "--max-args",
            "--max-lines",
            "--delimiter",
            "--max-procs",
            "--arg-file",
            "--replace",
        ],
        0,
    ),
    ("command", &[], 0),
    ("exec", &["-a"], 0),
    ("builtin", &[], 0),
    ("stdbuf", &["-i", "-o", "-e"], 0),
    ("time", &["-f", "-o", "--format", "--output"], 0),
    ("watch", &["-n", "--interval"], 0),
];
/// Shells whose `-c` argument is a command line.
const SHELLS: &[&str] = &["sh", "bash", "dash", "zsh", "ksh", "fish"];

/// The simple commands `line` runs, in the order they appear (a command line
/// with none gives none).
pub(crate) fn simple_commands(line: &str) -> Vec<String> {
    let mut commands = Vec::new();
    split(line, 0, &mut commands);
    commands
}

/// Splits `line` (at nesting `depth`) into `out`.
fn split(line: &str, depth: usize, out: &mut Vec<String>) {
    let chars: Vec<char> = line.chars().collect();
    let mut part = String::new();
    let mut index = 0;
    let (mut single, mut double) = (false, false);
    while index < chars.len() {
        let c = chars[index];
        let next = chars.get(index + 1).copied();
        if single {
            single = c != '\'';
            part.push(c);
            index += 1;
            continue;
        }
        match c {
            '\\' => {
                part.push(c);
                if let Some(next) = next {
                    part.push(next);
                }
                index += 2;
                continue;
            }
            '\'' if !double => single = true,
            '"' => double = !double,
            // `$((...))` is arithmetic, no command.
            '$' if next == Some('(') && chars.get(index + 2) == Some(&'(') => {}
            '$' | '<' | '>' if next == Some('(') && (c == '$' || !double) => {
                let (inner, end) = enclosed(&chars, index + 2, ')');
                nested(&inner, depth, out);
                part.extend(&chars[index..end.min(chars.len())]);
                index = end;
                continue;
            }
            '`' => {
                let (inner, end) = enclosed(&chars, index + 1, '`');
                nested(&inner, depth, out);
                part.extend(&chars[index..end.min(chars.len())]);
                index = end;
                continue;
            }
            '(' if !double && part.trim().is_empty() => {
                let (inner, end) = enclosed(&chars, index + 1, ')');
                nested(&inner, depth, out);
                index = end;
                continue;
            }
            ';' | '\n' | '|' if !double => {
                finish(&mut part, depth, out);
                index += 1;
                continue;
            }
            '&' if !double => {
                let redirection =
                    matches!(part.chars().last(), Some('>' | '<')) || next == Some('>');
                if !redirection {
                    finish(&mut part, depth, out);
                    index += 1;
                    continue;
                }
            }
            _ => {}
        }
        part.push(c);
        index += 1;
    }
    finish(&mut part, depth, out);
}

/// The text from `start` to the `close` that ends it (parentheses nest, quotes
/// hide), and the index after that `close` (the end when there is none).
fn enclosed(chars: &[char], start: usize, close: char) -> (String, usize) {
    let mut level = 0usize;
    let (mut single, mut double) = (false, false);
    let mut index = start;
    while index < chars.len() {
        let c = chars[index];
        match c {
            _ if single => single = c != '\'',
            '\\' => index += 1,
            '\'' if !double => single = true,
            '"' if close != '"' => double = !double,
            '(' if close == ')' && !double => level += 1,
            _ if c == close && !double && level == 0 => {
                return (chars[start..index].iter().collect(), index + 1);
            }
            ')' if close == ')' && !double => level -= 1,
            _ => {}
        }
        index += 1;
    }
    (
        chars[start.min(chars.len())..].iter().collect(),
        chars.len(),
    )
}

/// A nested command line: split too, unless too deep.
fn nested(line: &str, depth: usize, out: &mut Vec<String>) {
    if depth < MAX_DEPTH {
        split(line, depth + 1, out);
    }
}

/// Ends the command being read: kept, with what it wraps, when it runs something.
fn finish(part: &mut String, depth: usize, out: &mut Vec<String>) {
    let text = std::mem::take(part);
    let mut words = raw_words(&text);
    while words.first().is_some_and(|word| OPENERS.contains(word)) {
        words.remove(0);
    }
    while words.first().is_some_and(|word| is_assignment(word)) {
        words.remove(0);
    }
    if words.is_empty() || (words.len() == 1 && CLOSERS.contains(&words[0])) {
        return;
    }
    let command = words.join(" ");
    let unquoted: Vec<String> = words.iter().map(|word| unquote(word)).collect();
    out.push(command);
    wrapped(&unquoted, depth, out);
}

/// The words of a simple command as written: cut at spaces outside quotes,
/// substitutions and parentheses.
fn raw_words(text: &str) -> Vec<&str> {
    let mut words = Vec::new();
    let mut start: Option<usize> = None;
    let (mut single, mut double, mut backquote) = (false, false, false);
    let mut level = 0usize;
    let mut escaped = false;
    for (at, c) in text.char_indices() {
        let open = single || double || backquote || level > 0;
        if c.is_whitespace() && !open && !escaped {
            if let Some(from) = start.take() {
                words.push(&text[from..at]);
            }
            continue;
        }
        start.get_or_insert(at);
        if escaped {
            escaped = false;
            continue;
        }
        match c {
            _ if single => single = c != '\'',
            '\\' => escaped = true,
            '\'' if !double => single = true,
            '"' => double = !double,
            '`' => backquote = !backquote,
            '(' if !double => level += 1,
            ')' if !double => level = level.saturating_sub(1),
            _ => {}
        }
    }
    if let Some(from) = start {
        words.push(&text[from..]);
    }
    words
}

/// What a wrapper or a shell in `words` runs, as commands of their own.
fn wrapped(words: &[String], depth: usize, out: &mut Vec<String>) {
    let Some(program) = words.first() else {
        return;
    };
    let name = program.rsplit('/').next().unwrap_or(program);
    if SHELLS.contains(&name) {
        if let Some(at) = words.iter().position(|word| {
            word == "-c"
                || (word.starts_with('-') && !word.starts_with("--") && word.ends_with('c'))
        }) {
            if let Some(line) = words.get(at + 1) {
                nested(line, depth, out);
            }
        }
    } else if name == "eval" {
        nested(&words[1..].join(" "), depth, out);
    } else if let Some((_, valued, positional)) = WRAPPERS.iter().find(|(w, ..)| *w == name) {
        // The wrapped command starts after the wrapper's options (with their
        // values), assignments (`env A=1 cmd`) and positional words.
        let mut rest = &words[1..];
        while let Some(word) = rest.first() {
            if valued.contains(&word.as_str()) {
                rest = rest.get(2..).unwrap_or_default();
            } else if word.starts_with('-') || is_assignment(word) {
                rest = &rest[1..];
            } else {
                break;
            }
        }
        rest = rest.get(*positional..).unwrap_or_default();
        if !rest.is_empty() && depth < MAX_DEPTH {
            let command = rest.join(" ");
            out.push(command);
            wrapped(rest, depth + 1, out);
        }
    }
}

/// Whether `word` is a `NAME=value` assignment.
fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.chars().all(|c| c == '_' || c.is_ascii_alphanumeric())
    })
}

/// `word` with the shell's quotes and backslashes removed.
fn unquote(word: &str) -> String {
    let mut text = String::new();
    let (mut single, mut double) = (false, false);
    let mut chars = word.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' if !double => single = !single,
            _ if single => text.push(c),
            '"' => double = !double,
            '\\' => text.extend(chars.next()),
            c => text.push(c),
        }
    }
    text
}
