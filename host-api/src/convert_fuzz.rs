//! Fuzzing the host's checks of what a guest returns ([`convert_actions`]) with
//! arbitrary action lists (the `agentplex-fuzz` driver: stable Rust, inside
//! `cargo test`; `FUZZ_SECS=600` for a long run). Strings lean toward what breaks
//! checks: URLs of every scheme and host spelling, paths with `..`, text that is
//! almost JSON, empty ids, huge strings.
//!
//! The properties, for any list: no panic; the list is accepted only when each of
//! its actions is, and refused with the first bad action's reason; an accepted URL
//! is http(s) on a loopback host, an accepted file path stays inside the scratch
//! folder, accepted ids are not empty and every accepted event converts to
//! universal JSON; a refusal is an error of bounded size (it ends the session and
//! is shown in its `session.ended` event).

use agentplex_fuzz::{self as fuzz, arbitrary::Result, mutate, Unstructured};

use super::*;

/// Cases in the CI form (about a second).
const CI_CASES: u64 = 20_000;

/// The longest error a refused list may give.
const MAX_ERROR_BYTES: usize = 2048;

#[test]
fn fuzzed_action_lists_are_checked_without_panics() {
    fuzz::run("host-convert-actions", CI_CASES, &mut Decode);
}

/// The fuzz target: arbitrary action lists through [`convert_actions`].
struct Decode;

impl fuzz::Target for Decode {
    type Input = Vec<wit::Action>;

    fn generate(&mut self, u: &mut Unstructured<'_>) -> Result<Vec<wit::Action>> {
        (0..u.int_in_range(0..=5)?).map(|_| action(u)).collect()
    }

    fn check(&mut self, actions: &Vec<wit::Action>) {
        let alone: Vec<Result<Vec<Action>, HostError>> = actions
            .iter()
            .map(|action| convert_actions("fuzz", vec![action.clone()]))
            .collect();
        match convert_actions("fuzz", actions.clone()) {
            Ok(converted) => {
                assert!(alone.iter().all(Result::is_ok), "a bad action was let in");
                assert_eq!(converted.len(), actions.len());
                converted.iter().for_each(check_accepted);
            }
            Err(error) => {
                let first = alone.iter().find_map(|r| r.as_ref().err());
                let first = first.expect("a refused list has a bad action");
                assert_eq!(error.to_string(), first.to_string(), "the first bad one");
                let text = error.to_string();
                assert!(text.len() <= MAX_ERROR_BYTES, "{} bytes", text.len());
            }
        }
    }

    fn describe(&self, actions: &Vec<wit::Action>) -> String {
        serde_json::to_string_pretty(actions).expect("actions serialize")
    }
}

/// What an accepted action must be, checked apart from the host's own code.
fn check_accepted(action: &Action) {
    match action {
        Action::HttpRequest(crate::HttpRequest { url, .. })
        | Action::OpenSse(crate::SseRequest { url, .. }) => {
            let parsed = url::Url::parse(url).expect("an accepted URL parses");
            assert!(matches!(parsed.scheme(), "http" | "https"), "{url}");
            let host = parsed.host_str().unwrap_or_default();
            let ip = host.trim_matches(['[', ']']).parse::<std::net::IpAddr>();
            let loopback =
                host.eq_ignore_ascii_case("localhost") || ip.is_ok_and(|ip| ip.is_loopback());
            assert!(loopback, "{url}");
        }
        Action::WriteFile(write) => {
            let path = &write.path;
            assert!(!path.is_empty() && !path.starts_with('/'), "{path:?}");
            assert!(!path.split('/').any(|part| part == ".."), "{path:?}");
        }
        Action::Spawn(spawn) => {
            assert!(!spawn.process_id.is_empty());
            assert!(spawn
                .argv
                .first()
                .is_some_and(|program| !program.is_empty()));
        }
        Action::SetNativeSessionId(id) => assert!(!id.is_empty()),
        Action::Emit(emitted) => {
            let data = serde_json::to_value(&emitted.data).expect("event data is JSON");
            for key in ["item_id", "permission_id", "question_id"] {
                let id = data.get(key).or_else(|| data.get("item")?.get(key));
                assert!(id.is_none_or(|id| id != ""), "empty {key}: {data}");
            }
        }
        _ => {}
    }
}

/// Any action, of any variant.
fn action(u: &mut Unstructured<'_>) -> Result<wit::Action> {
    Ok(match u.int_in_range(0..=11)? {
        0..=3 => wit::Action::Emit(emitted(u)?),
        4 => wit::Action::SetNativeSessionId(id(u)?),
        5 => wit::Action::Spawn(wit::SpawnRequest {
            process_id: id(u)?,
            argv: list(u, id)?,
            env: list(u, |u| Ok((text(u)?, text(u)?)))?,
            cwd: option(u, path)?,
            share_key: option(u, id)?,
        }),
        6 => wit::Action::HttpRequest(wit::HttpRequest {
            request_id: id(u)?,
            method: text(u)?,
            url: url(u)?,
            headers: Vec::new(),
            body: u.arbitrary()?,
            timeout_ms: u.arbitrary()?,
        }),
        7 => wit::Action::OpenSse(wit::SseRequest {
            stream_id: id(u)?,
            url: url(u)?,
            headers: list(u, |u| Ok((text(u)?, text(u)?)))?,
        }),
        8 => wit::Action::WriteFile(wit::FileWrite {
            path: path(u)?,
            contents: u.arbitrary()?,
            executable: u.arbitrary()?,
        }),
        9 => wit::Action::SetTimer(wit::TimerRequest {
            timer_id: id(u)?,
            delay_ms: u.arbitrary()?,
        }),
        10 => wit::Action::WriteStdin(wit::StdinWrite {
            process_id: id(u)?,
            data: u.arbitrary()?,
        }),
        _ => match u.int_in_range(0..=3)? {
            0 => wit::Action::CloseStdin(id(u)?),
            1 => wit::Action::Kill(id(u)?),
            2 => wit::Action::CloseSse(id(u)?),
            _ => wit::Action::CancelTimer(id(u)?),
        },
    })
}

/// An event with a raw payload or not.
pub(crate) fn emitted(u: &mut Unstructured<'_>) -> Result<ev::EmittedEvent> {
    Ok(ev::EmittedEvent {
        event: event(u)?,
        synthetic: u.arbitrary()?,
        raw: option(u, json_text)?,
    })
}

fn event(u: &mut Unstructured<'_>) -> Result<ev::Event> {
    Ok(match u.int_in_range(0..=12)? {
        0 => ev::Event::SessionStarted(option(u, json_text)?),
        1 => ev::Event::SessionEnded(ev::SessionEnded {
            reason: *u.choose(&[
                ev::SessionEndReason::Completed,
                ev::SessionEndReason::Error,
                ev::SessionEndReason::Terminated,
            ])?,
            terminated_by: *u.choose(&[ev::TerminatedBy::Agent, ev::TerminatedBy::Daemon])?,
            message: option(u, text)?,
            exit_code: u.arbitrary()?,
            stderr: None,
        }),
        2 => ev::Event::TurnStarted(turn(u)?),
        3 => ev::Event::TurnEnded(turn(u)?),
        4 => ev::Event::ItemStarted(item(u)?),
        5 => ev::Event::ItemCompleted(item(u)?),
        6 => ev::Event::ItemDelta(ev::ItemDelta {
            item_id: id(u)?,
            native_item_id: option(u, id)?,
            delta: text(u)?,
        }),
        7 | 8 => {
            let permission = ev::Permission {
                permission_id: id(u)?,
                action: text(u)?,
                status: *u.choose(&[
                    ev::PermissionStatus::Requested,
                    ev::PermissionStatus::Accept,
                    ev::PermissionStatus::AcceptForSession,
                    ev::PermissionStatus::Reject,
                ])?,
                metadata: option(u, json_text)?,
            };
            if u.arbitrary()? {
                ev::Event::PermissionRequested(permission)
            } else {
                ev::Event::PermissionResolved(permission)
            }
        }
        9 => ev::Event::QuestionRequested(ev::Question {
            question_id: id(u)?,
            prompt: text(u)?,
            options: list(u, text)?,
            status: *u.choose(&[
                ev::QuestionStatus::Requested,
                ev::QuestionStatus::Answered,
                ev::QuestionStatus::Rejected,
            ])?,
            response: option(u, text)?,
        }),
        10 => ev::Event::Error(ev::ErrorInfo {
            message: text(u)?,
            code: option(u, id)?,
            details: option(u, json_text)?,
        }),
        11 => ev::Event::AgentUnparsed(ev::Unparsed {
            error: text(u)?,
            location: text(u)?,
            raw_hash: option(u, id)?,
        }),
        _ => ev::Event::QuestionResolved(ev::Question {
            question_id: id(u)?,
            prompt: String::new(),
            options: Vec::new(),
            status: ev::QuestionStatus::Answered,
            response: None,
        }),
    })
}

fn turn(u: &mut Unstructured<'_>) -> Result<ev::Turn> {
    Ok(ev::Turn {
        turn_id: option(u, id)?,
        metadata: option(u, json_text)?,
        usage: None,
    })
}

fn item(u: &mut Unstructured<'_>) -> Result<ev::Item> {
    Ok(ev::Item {
        item_id: id(u)?,
        native_item_id: option(u, id)?,
        parent_id: option(u, id)?,
        kind: *u.choose(&[
            ev::ItemKind::Message,
            ev::ItemKind::ToolCall,
            ev::ItemKind::ToolResult,
            ev::ItemKind::System,
            ev::ItemKind::Status,
            ev::ItemKind::Unknown,
        ])?,
        role: option(u, |u| {
            Ok(*u.choose(&[
                ev::ItemRole::User,
                ev::ItemRole::Assistant,
                ev::ItemRole::System,
                ev::ItemRole::Tool,
            ])?)
        })?,
        status: *u.choose(&[
            ev::ItemStatus::InProgress,
            ev::ItemStatus::Completed,
            ev::ItemStatus::Failed,
        ])?,
        content: list(u, part)?,
    })
}

fn part(u: &mut Unstructured<'_>) -> Result<ev::ContentPart> {
    Ok(match u.int_in_range(0..=4)? {
        0 => ev::ContentPart::Text(text(u)?),
        1 => ev::ContentPart::Json(json_text(u)?),
        2 => ev::ContentPart::ToolCall(ev::ToolCallPart {
            name: text(u)?,
            arguments: json_text(u)?,
            call_id: id(u)?,
        }),
        3 => ev::ContentPart::FileRef(ev::FileRefPart {
            path: path(u)?,
            action: *u.choose(&[ev::FileAction::Read, ev::FileAction::Write])?,
            diff: option(u, text)?,
        }),
        _ => ev::ContentPart::Status(ev::StatusPart {
            label: text(u)?,
            detail: option(u, text)?,
        }),
    })
}

/// Up to four values of `item`.
pub(crate) fn list<T>(
    u: &mut Unstructured<'_>,
    item: impl Fn(&mut Unstructured<'_>) -> Result<T>,
) -> Result<Vec<T>> {
    (0..u.int_in_range(0..=4)?).map(|_| item(u)).collect()
}

pub(crate) fn option<T>(
    u: &mut Unstructured<'_>,
    value: impl Fn(&mut Unstructured<'_>) -> Result<T>,
) -> Result<Option<T>> {
    Ok(if u.arbitrary()? {
        Some(value(u)?)
    } else {
        None
    })
}

/// An id: usually plain, sometimes empty or odd.
pub(crate) fn id(u: &mut Unstructured<'_>) -> Result<String> {
    Ok(match u.int_in_range(0..=5)? {
        0 => String::new(),
        1 => mutate::string(u)?,
        _ => format!("id_{}", u.int_in_range(0..=9)?),
    })
}

/// Any text ([`mutate::string`]).
pub(crate) fn text(u: &mut Unstructured<'_>) -> Result<String> {
    mutate::string(u)
}

/// JSON, JSON with a mutation (often still JSON), or not JSON at all.
pub(crate) fn json_text(u: &mut Unstructured<'_>) -> Result<String> {
    let valid = r#"{"a":[1,"b",{"c":null}],"d":"e"}"#;
    Ok(match u.int_in_range(0..=3)? {
        0 => valid.to_owned(),
        1 => mutate::scalar(u)?.to_string(),
        2 => mutate::payload(u, valid, &[])?,
        _ => text(u)?,
    })
}

/// A URL of some scheme, host spelling, port and path, sometimes mangled.
pub(crate) fn url(u: &mut Unstructured<'_>) -> Result<String> {
    const SCHEMES: &[&str] = &["http", "https", "HTTP", "file", "ws", "ftp", ""];
    const HOSTS: &[&str] = &[
        "127.0.0.1",
        "localhost",
        "LocalHost",
        "localhost.",
        "[::1]",
        "127.9.9.9",
        "2130706433",
        "0x7f.1",
        "[::ffff:127.0.0.1]",
        "0.0.0.0",
        "[::]",
        "10.0.0.1",
        "example.com",
        "localhost.example.com",
        "127.0.0.1.example.com",
        "user@127.0.0.1",
        "127.0.0.1@example.com",
        "127.0.0.1:80@example.com",
        "",
    ];
    const PORTS: &[&str] = &["", ":80", ":0", ":65535", ":99999", ":x"];
    const PATHS: &[&str] = &[
        "",
        "/",
        "/a?b#c",
        "/../x",
        "\\\\example.com/",
        "//example.com/",
    ];
    let url = format!(
        "{}://{}{}{}",
        u.choose(SCHEMES)?,
        u.choose(HOSTS)?,
        u.choose(PORTS)?,
        u.choose(PATHS)?
    );
    if u.ratio(1, 4)? {
        mutate::text(u, &url, &[])
    } else {
        Ok(url)
    }
}

/// A file path: plain, absolute, with `.`, `..`, backslashes or odd characters.
pub(crate) fn path(u: &mut Unstructured<'_>) -> Result<String> {
    const PATHS: &[&str] = &[
        "a.txt",
        "dir/a",
        "../a",
        "/etc/x",
        "a/../../b",
        "./a",
        "a//b",
        "",
        ".",
        "a/./b",
        "a/..",
        "C:\\x",
        "a\\..\\b",
        "~/x",
        "a/b/",
        "..",
    ];
    if u.ratio(1, 4)? {
        let path = u.choose(PATHS)?.to_string();
        mutate::text(u, &path, &[])
    } else {
        Ok(u.choose(PATHS)?.to_string())
    }
}
