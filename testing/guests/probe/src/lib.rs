//! `probe`: a test-only adapter that misbehaves on request, to test the daemon's
//! WebAssembly host (its CPU and memory limits, trap isolation, missing WASI imports
//! and action checks). Never shipped.
//!
//! It answers each message by its first word:
//!
//! | message     | what the guest does                                                  |
//! |-------------|----------------------------------------------------------------------|
//! | `loop`      | spins forever (the host's CPU budget must stop it)                   |
//! | `alloc`     | allocates and touches 1 MiB blocks until memory runs out             |
//! | `trap`      | panics, which traps                                                  |
//! | `open`      | reads `/etc/hostname` with `std::fs` and reports the result as text  |
//! | `badaction` | returns an `http-request` to `http://example.com/` (not loopback)    |
//! | `garbage`   | returns an `error` event whose `details` are not JSON                |
//! | `huge MIB`  | replies with one assistant message of MIB MiB of text                |
//! | `flood N`   | returns an assistant message streamed in N deltas (the turn stays open) |
//! | `fetch URL` | `http-request` GET to URL; the response comes back as `agent.unparsed` |
//! | `sse URL`   | `open-sse` on URL; each event comes back as `agent.unparsed`           |
//! | `share KEY CMD` | spawns `sh -c CMD` shared under KEY; stdout lines come back as `agent.unparsed` |
//! | `grow MIB`  | allocates and frees MIB MiB (the instance's memory stays grown), replies `grew` |
//! | `log TEXT`  | writes TEXT to the daemon's log at `warn` (the host's `log` import), replies `logged` |
//! | `write PATH TEXT` | asks the host to write TEXT to PATH in the scratch folder (`write-file`), replies `wrote` |
//! | other text  | replies with the same text in one assistant message, ends the turn   |
//!
//! The commands that start I/O leave the turn open: their results arrive through
//! the kit's default handlers, which report them as `agent.unparsed` with the raw
//! payload kept.
//!
//! Every turn opens with `turn.started` and the synthetic user item (the kit's
//! [`ReplySession`]), so a test can tell "the guest was called" from "it finished".

#![warn(missing_docs)]

use std::hint::black_box;

use sandbox_agent_adapter_kit::prelude::*;
use sandbox_agent_adapter_kit::reply::{Replier, Reply, ReplySession};

/// The probe adapter (agent id `probe`).
pub struct Probe;

impl Adapter for Probe {
    type Session = ReplySession<Probe>;

    fn info() -> AdapterInfo {
        AdapterInfo::builtin(
            "probe",
            "Probe",
            env!("CARGO_PKG_VERSION"),
            Capabilities::TEXT,
        )
    }
}

impl Replier for Probe {
    fn reply(text: &str) -> Reply {
        match text::command(text).0.as_str() {
            "loop" => spin(),
            "alloc" => exhaust_memory(),
            "trap" => panic!("probe: trap requested"),
            "open" => Reply::Text(match std::fs::read_to_string("/etc/hostname") {
                Ok(contents) => format!("open: read {} bytes", contents.len()),
                Err(error) => format!("open failed: {error}"),
            }),
            "badaction" => Reply::Actions(vec![Action::HttpRequest(HttpRequest {
                request_id: "probe-1".to_owned(),
                method: "GET".to_owned(),
                url: "http://example.com/".to_owned(),
                headers: Vec::new(),
                body: Vec::new(),
                timeout_ms: Some(1_000),
            })]),
            "garbage" => Reply::Actions(vec![Action::Emit(event::error_with_details(
                "probe: garbage",
                None,
                Some("{not json".to_owned()),
            ))]),
            "huge" => {
                let mib: usize = text::command(text).1.parse().unwrap_or(1);
                Reply::Text("x".repeat(mib << 20))
            }
            "flood" => {
                let deltas: usize = text::command(text).1.parse().unwrap_or(1000);
                let chunks = (0..deltas).map(|n| format!("{n} "));
                let events = event::assistant_message("flood", chunks);
                Reply::Actions(events.into_iter().map(Action::Emit).collect())
            }
            "fetch" => Reply::Actions(vec![Action::HttpRequest(HttpRequest {
                request_id: "fetch".to_owned(),
                method: "GET".to_owned(),
                url: text::command(text).1.to_owned(),
                headers: Vec::new(),
                body: Vec::new(),
                timeout_ms: Some(5_000),
            })]),
            "sse" => Reply::Actions(vec![Action::OpenSse(SseRequest {
                stream_id: "sse".to_owned(),
                url: text::command(text).1.to_owned(),
                headers: Vec::new(),
            })]),
            "share" => {
                let rest = text::command(text).1;
                let (key, command) = rest.split_once(' ').unwrap_or((rest, "true"));
                let spawn = SpawnRequest::command("shared", ["sh", "-c", command]).shared(key);
                Reply::Actions(vec![Action::Spawn(spawn)])
            }
            "grow" => {
                let mib: usize = text::command(text).1.parse().unwrap_or(16);
                grow(mib);
                Reply::Text("grew".to_owned())
            }
            "log" => {
                sandbox_agent_adapter_kit::log::warn(text::command(text).1);
                Reply::Text("logged".to_owned())
            }
            "write" => {
                let rest = text::command(text).1;
                let (path, contents) = rest.split_once(' ').unwrap_or((rest, ""));
                Reply::Actions(vec![Action::WriteFile(FileWrite {
                    path: path.to_owned(),
                    contents: contents.as_bytes().to_vec(),
                    executable: false,
                })])
            }
            _ => Reply::Text(text.to_owned()),
        }
    }
}

/// Allocates and touches `mib` MiB, then frees it: linear memory stays that large.
fn grow(mib: usize) {
    let mut block = vec![0u8; mib << 20];
    for page in block.iter_mut().step_by(4096) {
        *page = 1;
    }
    black_box(&block);
}

/// Loops forever, in a way the optimizer cannot remove.
fn spin() -> ! {
    let mut counter: u64 = 0;
    loop {
        counter = black_box(counter.wrapping_add(1));
    }
}

/// Allocates 1 MiB blocks, writing to every page so the memory is really used, until
/// an allocation fails (which aborts, i.e. traps).
fn exhaust_memory() -> ! {
    const BLOCK: usize = 1 << 20;
    let mut blocks: Vec<Vec<u8>> = Vec::new();
    loop {
        let mut block = vec![0u8; BLOCK];
        for page in block.iter_mut().step_by(4096) {
            *page = 1;
        }
        blocks.push(black_box(block));
    }
}

sandbox_agent_adapter_kit::export!(Probe);

#[cfg(test)]
mod tests {
    use sandbox_agent_adapter_kit::transcript::render;

    use super::*;

    fn send(text: &str) -> Vec<String> {
        let config = SessionConfig {
            session_id: "p".into(),
            agent_mode: "build".into(),
            permission_mode: "default".into(),
            model: None,
            variant: None,
            directory: "/".into(),
            agent_binary: None,
            env: Vec::new(),
            resume_native_session_id: None,
            mcp_servers: Vec::new(),
            skills: Vec::new(),
            scratch_dir: String::new(),
            model_endpoints: Vec::new(),
            policy: None,
        };
        let mut session = <Probe as Adapter>::Session::new(config);
        render(&session.send_message(vec![MessagePart::Text(text.into())]))
    }

    #[test]
    fn other_text_is_answered_in_one_turn() {
        assert_eq!(
            send("hi"),
            [
                "turn.started turn_1",
                r#"item.started itm_1 message/user in_progress [text "hi"] (synthetic)"#,
                r#"item.completed itm_1 message/user completed [text "hi"] (synthetic)"#,
                "item.started itm_2 message/assistant in_progress []",
                r#"item.delta itm_2 "hi""#,
                r#"item.completed itm_2 message/assistant completed [text "hi"]"#,
                "turn.ended turn_1",
            ]
        );
    }

    #[test]
    fn badaction_asks_for_a_non_loopback_request() {
        let lines = send("badaction");
        assert_eq!(
            lines.last().unwrap(),
            "http-request probe-1 GET http://example.com/"
        );
    }

    #[test]
    fn huge_and_flood_answer_at_the_size_asked() {
        let huge = send("huge 1");
        assert_eq!(huge[4].len(), "item.delta itm_2 \"\"".len() + (1 << 20));
        let flood = send("flood 3");
        let deltas = flood.iter().filter(|line| line.starts_with("item.delta"));
        assert_eq!(deltas.count(), 3);
    }

    #[test]
    #[should_panic(expected = "trap requested")]
    fn trap_panics() {
        send("trap");
    }
}
