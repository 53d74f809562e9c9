//! A bounded record of what a session's processes printed on stderr, for the
//! `stderr` excerpt of a `session.ended` error.

use std::collections::VecDeque;

use agentplex_universal::StderrOutput;

const HEAD_LINES: usize = 20;
const TAIL_LINES: usize = 50;
/// Longest line kept in the excerpt.
const LINE_CHARS: usize = 2_000;

/// The first and last lines of stderr, and how many there were.
#[derive(Debug, Default)]
pub struct StderrCapture {
    head: Vec<String>,
    tail: VecDeque<String>,
    total: u64,
}

impl StderrCapture {
    /// Records one line.
    pub fn push(&mut self, line: &str) {
        self.total += 1;
        let line: String = line.chars().take(LINE_CHARS).collect();
        if self.head.len() < HEAD_LINES {
            self.head.push(line);
            return;
        }
        if self.tail.len() == TAIL_LINES {
            self.tail.pop_front();
        }
        self.tail.push_back(line);
    }

    /// The excerpt, or `None` when nothing was printed.
    pub fn excerpt(&self) -> Option<StderrOutput> {
        if self.total == 0 {
            return None;
        }
        let truncated = self.total > (HEAD_LINES + TAIL_LINES) as u64;
        let join = |lines: &mut dyn Iterator<Item = &String>| {
            lines.cloned().collect::<Vec<_>>().join("\n")
        };
        if truncated {
            Some(StderrOutput {
                head: Some(join(&mut self.head.iter())),
                tail: Some(join(&mut self.tail.iter())),
                truncated,
                total_lines: Some(self.total),
            })
        } else {
            Some(StderrOutput {
                head: Some(join(&mut self.head.iter().chain(self.tail.iter()))),
                tail: None,
                truncated,
                total_lines: Some(self.total),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_stderr_is_kept_whole() {
        let mut capture = StderrCapture::default();
        assert!(capture.excerpt().is_none());
        capture.push("a");
        capture.push("b");
        let excerpt = capture.excerpt().unwrap();
        assert_eq!(excerpt.head.as_deref(), Some("a\nb"));
        assert!(!excerpt.truncated);
        assert_eq!(excerpt.total_lines, Some(2));
    }

    #[test]
    fn long_stderr_keeps_head_and_tail() {
        let mut capture = StderrCapture::default();
        for i in 0..1000 {
            capture.push(&i.to_string());
        }
        let excerpt = capture.excerpt().unwrap();
        assert!(excerpt.truncated);
        assert!(excerpt.head.unwrap().starts_with("0\n1\n"));
        let tail = excerpt.tail.unwrap();
        assert!(tail.starts_with("950\n") && tail.ends_with("999"));
        assert_eq!(excerpt.total_lines, Some(1000));
    }
}
