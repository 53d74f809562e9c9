//! The shared case table (testing/policy/cases.json) and what it cannot hold.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::*;

fn table() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../testing/policy/cases.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Resolves `path` through the table's links, as the file system would.
fn resolver(links: &serde_json::Map<String, Value>) -> impl Fn(&Path) -> PathBuf + '_ {
    move |path: &Path| {
        let mut path = path.to_path_buf();
        for _ in 0..8 {
            let link = links.iter().find_map(|(from, to)| {
                let rest = path.strip_prefix(from).ok()?;
                Some(Path::new(to.as_str().unwrap()).join(rest))
            });
            match link {
                Some(resolved) => path = resolved,
                None => break,
            }
        }
        path
    }
}

#[test]
fn every_case_of_the_table_is_decided_as_it_says() {
    let table = table();
    let resolve = resolver(table["links"].as_object().unwrap());
    let directory = Path::new(table["directory"].as_str().unwrap());
    let home = Path::new(table["home"].as_str().unwrap());
    let context = Context {
        directory,
        home: Some(home),
        resolve: &resolve,
    };
    let mut count = 0;
    let mut wrong = Vec::new();
    for group in table["groups"].as_array().unwrap() {
        let policy = Policy::from_value(&group["policy"])
            .unwrap_or_else(|error| panic!("{}: {error}", group["name"]));
        for case in group["cases"].as_array().unwrap() {
            count += 1;
            let request = Request {
                tool: ToolKind::parse(case["tool"].as_str().unwrap()).unwrap(),
                command: case["command"].as_str(),
                path: case["path"].as_str(),
                mcp: case["mcp"].as_str(),
            };
            let verdict = policy.decide(&request, &context);
            let got = json!({
                "decision": verdict.decision.as_str(),
                "rule": verdict.rule,
            });
            let expected = json!({"decision": case["decision"], "rule": case["rule"]});
            if got != expected {
                wrong.push(format!("{}: {case}: got {got}", group["name"]));
            }
        }
    }
    assert!(count >= 200, "{count} cases");
    assert!(
        wrong.is_empty(),
        "{} wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

#[test]
fn every_invalid_policy_is_refused_naming_its_field() {
    for case in table()["invalid"].as_array().unwrap() {
        let error = Policy::from_value(&case["policy"]).expect_err(&case.to_string());
        assert_eq!(error.field(), case["field"].as_str(), "{case}: {error}");
    }
}

#[test]
fn a_syntax_error_says_its_line_and_column() {
    let error =
        Policy::from_json("{\n  \"rules\": [\n    {\"tool\": \"shell\",}\n  ]\n}").unwrap_err();
    let PolicyError::Syntax {
        line,
        column,
        reason,
    } = &error
    else {
        panic!("{error:?}");
    };
    assert_eq!((*line, *column), (3, 22), "{error}");
    assert!(!reason.contains("line"), "{reason}");
    assert!(
        error.to_string().starts_with("line 3, column 22: "),
        "{error}"
    );
}

#[test]
fn an_error_names_the_rule_and_what_is_wrong() {
    let error = Policy::from_json(r#"{"rules": [{"decision": "allow"}, {"tool": "read", "command": "cat *", "decision": "deny"}]}"#).unwrap_err();
    assert_eq!(
        error.to_string(),
        "rules[1].command: cannot match: a read request has no command, only a path"
    );
}

#[test]
fn the_ask_timeout_and_the_document_are_kept() {
    let policy = Policy::from_value(&json!({"default": "deny"})).unwrap();
    assert_eq!(policy.ask_timeout_secs(), DEFAULT_ASK_TIMEOUT_SECS);
    let document = json!({"rules": [], "askTimeoutSecs": 30});
    let policy = Policy::from_value(&document).unwrap();
    assert_eq!(policy.ask_timeout_secs(), 30);
    assert_eq!(policy.document(), &document);
}

#[test]
fn the_part_that_decided_a_compound_request_is_named() {
    let policy = Policy::from_value(&json!({
        "rules": [{"tool": "shell", "command": "ls*", "decision": "allow"},
                  {"tool": "shell", "command": "rm *", "decision": "deny"}],
    }))
    .unwrap();
    let resolve = |path: &Path| path.to_path_buf();
    let context = Context {
        directory: Path::new("/w"),
        home: None,
        resolve: &resolve,
    };
    let shell = |command| Request {
        tool: ToolKind::Shell,
        command: Some(command),
        path: None,
        mcp: None,
    };
    let verdict = policy.decide(&shell("ls -l && rm -rf  /"), &context);
    assert_eq!(
        verdict,
        Verdict {
            decision: Decision::Deny,
            rule: Some(1),
            subject: Some("rm -rf /".into()),
        }
    );
    // One command: nothing to name.
    assert_eq!(policy.decide(&shell("ls"), &context).subject, None);
    // Without a home, `~/` globs match nothing and `~/` paths stay in the directory.
    let policy =
        Policy::from_value(&json!({"rules": [{"path": "~/**", "decision": "deny"}]})).unwrap();
    let read = Request {
        tool: ToolKind::Read,
        command: None,
        path: Some("~/x"),
        mcp: None,
    };
    assert_eq!(policy.decide(&read, &context).decision, Decision::Ask);
}

#[test]
fn command_lines_split_into_what_they_run() {
    let cases: &[(&str, &[&str])] = &[
        ("ls", &["ls"]),
        ("a && b || c; d | e & f", &["a", "b", "c", "d", "e", "f"]),
        ("echo 'a; b' \"c && d\"", &["echo 'a; b' \"c && d\""]),
        ("x=$(a; b) y", &["a", "b", "y"]),
        (
            "echo $(echo $(rm x))",
            &["rm x", "echo $(rm x)", "echo $(echo $(rm x))"],
        ),
        ("cmd 2>&1 >/dev/null", &["cmd 2>&1 >/dev/null"]),
        (
            "sudo -E env A=1 rm x",
            &["sudo -E env A=1 rm x", "env A=1 rm x", "rm x"],
        ),
        ("bash -c 'a; b'", &["bash -c 'a; b'", "a", "b"]),
        ("if a; then b; else c; fi", &["a", "b", "c"]),
        ("", &[]),
        ("echo \"unclosed", &["echo \"unclosed"]),
        ("echo $(unclosed", &["unclosed", "echo $(unclosed"]),
    ];
    for (line, expected) in cases {
        assert_eq!(command::simple_commands(line), *expected, "{line:?}");
    }
}

proptest::proptest! {
    /// Any command line is split without a panic, and a line of two commands
    /// joined by `;` is decided as the stricter of the two alone.
    #[test]
    fn a_line_is_decided_as_its_strictest_command(
        first in "[a-z]{1,6}( [-a-z*]{1,6}){0,3}",
        second in "[a-z]{1,6}( [-a-z*]{1,6}){0,3}",
        noise in "\\PC{0,80}",
    ) {
        command::simple_commands(&noise);
        let policy = Policy::from_value(&json!({
            "rules": [{"tool": "shell", "command": "rm *", "decision": "deny"},
                      {"tool": "shell", "command": "l*", "decision": "allow"},
                      {"tool": "shell", "command": "*x*", "decision": "ask"}],
            "default": "allow",
        }))
        .unwrap();
        let resolve = |path: &Path| path.to_path_buf();
        let context = Context { directory: Path::new("/w"), home: None, resolve: &resolve };
        let decide = |line: &str| {
            let request = Request { tool: ToolKind::Shell, command: Some(line), path: None, mcp: None };
            policy.decide(&request, &context).decision
        };
        let both = decide(&format!("{first}; {second}"));
        proptest::prop_assert_eq!(both, decide(&first).max(decide(&second)));
    }
}
