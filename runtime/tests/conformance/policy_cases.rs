//! The approval policy's case table (`testing/policy/cases.json`, the cases the
//! policy engine's own tests decide) driven through a real agent CLI: for each
//! group the session's policy is replaced (`PUT .../policy`), the scripted model
//! asks for every case's tool call in one answer, and each request the agent asks
//! about must be decided as the table says, recorded as `permission.decided`.
//! What the policy leaves to the client is answered `reject`, so only what it
//! allows runs.
//!
//! The table's session directory and home are this sandbox's (`<workspace>/session`
//! and the agent's `HOME`), with the table's links made there. Cases run for the
//! kinds the agent asks about (`asksFor`) that the scripted model can ask for:
//! `shell`, `read` and `write`; the `mcp`, `fetch` and `other` cases are decided by
//! the engine's own tests only.

use std::collections::BTreeMap;
use std::path::{Component, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::harness::{Harness, AGENT_DEADLINE};
use crate::common::api::{decisions, expect_no_content, pretty};

/// Commands a case allows that the suite never runs for real, because they would
/// harm the machine, reach the network or print what depends on the machine
/// (`lsof` printed 4 MB on a CI host, which every later request of the turn
/// carried): the table decides them like any other, but the agent is not asked
/// to run them. (Writes a case allows outside the session's directory are not
/// asked for either.)
const NOT_RUN: [&str; 4] = ["rm -rf /", "npm install", "npm ci", "lsof"];

/// Where the table's paths are in this sandbox.
struct Places {
    /// The table's session directory and the sandbox's.
    directory: (String, PathBuf),
    /// The table's home and the agent's.
    home: (String, PathBuf),
}

impl Places {
    /// A path of the table as the agent is asked for it: the table's directory and
    /// home replaced by the sandbox's (as text, so `/work/session2` stays a sibling).
    fn reroot(&self, path: &str) -> String {
        for (table, here) in [&self.directory, &self.home] {
            if let Some(rest) = path.strip_prefix(table.as_str()) {
                return format!("{}{rest}", here.display());
            }
        }
        path.to_owned()
    }

    /// A path as the agent named it or was asked for it, absolute and without `.`
    /// or `..` (lexically): what a request is matched to a case by.
    fn key(&self, path: &str) -> String {
        let absolute = match path.strip_prefix("~/") {
            Some(rest) => self.home.1.join(rest),
            None => self.directory.1.join(path),
        };
        let mut parts: Vec<Component> = Vec::new();
        for part in absolute.components() {
            match part {
                Component::CurDir => {}
                Component::ParentDir => {
                    if matches!(parts.last(), Some(Component::Normal(_))) {
                        parts.pop();
                    }
                }
                part => parts.push(part),
            }
        }
        parts.iter().collect::<PathBuf>().display().to_string()
    }
}

/// One case of the table, as the agent is asked to carry it out.
#[derive(Debug)]
struct Case {
    group: String,
    /// The tool kind the table decides it as.
    tool: String,
    /// What the request is matched by in the transcript: the command line, or the
    /// path ([`Places::key`]).
    subject: String,
    decision: String,
    rule: Value,
    /// The path a `write` case writes, as the agent is asked for it.
    written: Option<String>,
}

/// What a `write` case writes.
const WRITTEN: &str = "written by the policy cases";

/// The table.
fn table() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../testing/policy/cases.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The cases of `group` this agent is asked to carry out, with the batch directive
/// of each.
fn runnable(group: &Value, places: &Places, kinds: &[String]) -> Vec<(Case, String)> {
    let name = group["name"].as_str().unwrap();
    let mut seen = Vec::new();
    group["cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|case| {
            let decision = case["decision"].as_str().unwrap().to_owned();
            let tool = case["tool"].as_str().unwrap().to_owned();
            if !kinds.contains(&tool) {
                return None;
            }
            let mut written = None;
            let (subject, directive) = match tool.as_str() {
                "shell" => {
                    let command = case["command"].as_str()?.to_owned();
                    if decision == "allow" && NOT_RUN.contains(&command.as_str()) {
                        return None;
                    }
                    (command.clone(), format!("run: {command}"))
                }
                "read" | "write" => {
                    let path = places.reroot(case["path"].as_str()?);
                    let subject = places.key(&path);
                    let inside = std::path::Path::new(&subject).starts_with(&places.directory.1);
                    if tool == "write" && decision == "allow" && !inside {
                        return None;
                    }
                    let directive = match tool.as_str() {
                        "read" => format!("read: {path}"),
                        _ => format!("write: {path}: {WRITTEN}"),
                    };
                    if tool == "write" {
                        written = Some(path);
                    }
                    (subject, directive)
                }
                _ => return None,
            };
            // A request is told apart by its subject: a repeated one is asked once.
            if seen.contains(&subject) {
                return None;
            }
            seen.push(subject.clone());
            let case = Case {
                group: name.to_owned(),
                tool,
                subject,
                decision,
                rule: case["rule"].clone(),
                written,
            };
            Some((case, directive))
        })
        .collect()
}

/// Runs one batch to its turn's end, answering `reject` to every request the
/// policy leaves to the client; the turn's events.
fn run_batch(h: &Harness, session: &str, directives: &[String]) -> Vec<Value> {
    let offset = h.last_sequence(session);
    h.send(session, &format!("batch: {}", json!(directives)));
    let deadline = Instant::now() + AGENT_DEADLINE * 3;
    let mut answered = Vec::new();
    loop {
        let events = h.api().events_after(session, offset);
        for decided in decisions(&events) {
            let id = decided["permission_id"].as_str().unwrap_or_default();
            if decided["decision"] == "ask" && !answered.iter().any(|a| a == id) {
                reject_unless_withdrawn(h, session, offset, id);
                answered.push(id.to_owned());
            }
        }
        if events.iter().any(|e| e["type"] == "turn.ended") {
            return events;
        }
        assert!(
            Instant::now() < deadline,
            "{}: the batch's turn did not end\n{}",
            h.agent.id,
            pretty(&events)
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Rejects permission request `id`, unless the agent withdrew it first: OpenCode
/// rejects the other requests of a turn itself once one is rejected, and the
/// transcript then says each was resolved.
fn reject_unless_withdrawn(h: &Harness, session: &str, offset: u64, id: &str) {
    let response = h.post_permission_reply(session, id, "reject");
    if response.status().as_u16() == 404 {
        let events = h.api().events_after(session, offset);
        let resolved = events
            .iter()
            .any(|e| e["type"] == "permission.resolved" && e["data"]["permission_id"] == id);
        assert!(
            resolved,
            "{}: {id} is not pending, and was never resolved\n{}",
            h.agent.id,
            pretty(&events)
        );
        return;
    }
    expect_no_content(response, "permission reply");
}

/// Every group of the table through the agent: each request it asks about is
/// decided as the table says.
pub fn policy_cases(h: &Harness) {
    if !h.asks_permission() {
        return;
    }
    let table = table();
    let places = Places {
        directory: (text(&table["directory"]), h.path("session")),
        home: (text(&table["home"]), h.sandbox.home().to_path_buf()),
    };
    make_links(&table, &places);
    let kinds: Vec<String> = h.agent_info()["capabilities"]["asksFor"]
        .as_array()
        .expect("capabilities.asksFor")
        .iter()
        .map(text)
        .collect();
    // Created with a policy: the agent is told at launch that one decides (a
    // policy first given by PUT finds the agent launched without one).
    let groups = table["groups"].as_array().unwrap();
    let session = h.create_with(
        "default",
        json!({ "policy": groups[0]["policy"], "directory": places.directory.1 }),
    );
    let mut wrong = Vec::new();
    let mut unasked = Vec::new();
    let mut refused_unasked = Vec::new();
    let mut withheld = Vec::new();
    let mut asked = 0;
    let mut natively = 0;
    for group in groups {
        let cases = runnable(group, &places, &kinds);
        if cases.is_empty() {
            continue;
        }
        h.set_policy(&session, group["policy"].clone());
        let mut pending: Vec<&(Case, String)> = cases.iter().collect();
        // Some agents drop the rest of an answer's calls once one is denied (Qwen
        // Code): what was not asked goes again, until a round asks nothing new.
        loop {
            let directives: Vec<String> = pending.iter().map(|(_, d)| d.clone()).collect();
            let events = run_batch(h, &session, &directives);
            let by_subject: BTreeMap<String, &Value> = decisions(&events)
                .into_iter()
                .filter(|d| d["by"] != "client")
                .map(|d| (subject(d, &places), d))
                .collect();
            let before = pending.len();
            pending.retain(|(case, _)| {
                let Some(decided) = by_subject.get(&case.subject) else {
                    return true;
                };
                let rule = match decided["by"].as_str() {
                    Some("rule") => decided["rule"].clone(),
                    _ => Value::Null,
                };
                if (decided["decision"].as_str(), &decided["tool"], &rule)
                    != (Some(case.decision.as_str()), &json!(case.tool), &case.rule)
                {
                    wrong.push(format!("{case:?} was decided {decided}"));
                }
                natively += usize::from(decided["native"] == true);
                false
            });
            asked += before - pending.len();
            if pending.is_empty() || pending.len() == before {
                break;
            }
        }
        for (case, _) in pending {
            let line = format!(
                "{}: {} {:?} ({})",
                case.group, case.tool, case.subject, case.decision
            );
            if runs_unasked(h.agent.id, case) {
                unasked.push(line);
            } else if withholds_denied_tools(h.agent.id)
                && denied_outright(&group["policy"], &case.tool)
            {
                withheld.push(line);
            } else if refused(case) {
                refused_unasked.push(line);
            } else {
                wrong.push(format!("{line} was never asked"));
            }
        }
    }
    eprintln!(
        "{}: {asked} cases decided ({natively} by the agent's native rules); {} run unasked \
         as documented: {unasked:#?}; \
         {} refused by the agent itself before asking: {refused_unasked:#?}; \
         {} of a kind denied outright, whose tools the agent withheld: {withheld:#?}",
        h.agent.id,
        unasked.len(),
        refused_unasked.len(),
        withheld.len(),
    );
    assert!(wrong.is_empty(), "{}: {wrong:#?}", h.agent.id);
    let burst = decision_buckets(h);
    report(h, "thirty calls of one answer at once", &burst);
    one_at_a_time(h, &session);
    let single = decision_buckets(h);
    let single: Vec<(f64, u64)> = single
        .iter()
        .zip(&burst)
        .map(|((bound, after), (_, before))| (*bound, after - before))
        .collect();
    report(h, "one call at a time", &single);
    if kinds.iter().any(|kind| kind == "mcp") && h.can("mcpServers") {
        mcp_tool_decided(h);
    }
}

/// Turns of one command each, which the policy allows: the decision time of
/// requests that do not wait behind others.
fn one_at_a_time(h: &Harness, session: &str) {
    let policy = json!({"rules": [{"tool": "shell", "command": "touch *", "decision": "allow"}], "default": "deny"});
    h.set_policy(session, policy);
    for turn in 0..ONE_AT_A_TIME {
        let events = h.turn(session, &format!("run: touch one-{turn}.txt"));
        let decided = decisions(&events);
        assert_eq!(
            decided.first().map(|d| (&d["decision"], &d["by"])),
            Some((&json!("allow"), &json!("rule"))),
            "{}",
            pretty(&events)
        );
    }
}

/// How many single-command turns [`one_at_a_time`] runs.
const ONE_AT_A_TIME: usize = 20;

/// Prints the decision time of the answers `buckets` count.
fn report(h: &Harness, load: &str, buckets: &[(f64, u64)]) {
    let count = buckets.last().map_or(0, |(_, count)| *count);
    assert!(
        count > 0,
        "{}: no policy decision was timed ({load})",
        h.agent.id
    );
    let bound = |share: f64| {
        let wanted = (count as f64 * share).ceil() as u64;
        let (bound, _) = buckets.iter().find(|(_, below)| *below >= wanted).unwrap();
        bound * 1000.0
    };
    eprintln!(
        "{}: policy decision time, {load}, over {count} answers: p50 <= {} ms, p99 <= {} ms \
         (request read to answer handed to the agent)",
        h.agent.id,
        bound(0.5),
        bound(0.99)
    );
}

/// An MCP tool's call is decided by its `server/tool`: denied, it never reaches
/// the server; allowed once the policy is replaced, it does.
fn mcp_tool_decided(h: &Harness) {
    let log_dir = tempfile::tempdir().unwrap();
    let log = log_dir.path().join("mcp-add.log");
    let deny = json!({"rules": [{"tool": "mcp", "mcp": "calc/*", "decision": "deny"}], "default": "allow"});
    let session = h.create_with(
        "default",
        json!({ "policy": deny, "mcp": super::checks::add_server(&log) }),
    );
    let called = || {
        std::fs::read_to_string(&log)
            .unwrap_or_default()
            .contains("tools/call")
    };
    // The turn's events, and its decisions on MCP calls.
    let mcp_turn = || {
        let events = h.turn(&session, r#"mcp: add {"a": 2, "b": 3}"#);
        let decided: Vec<Value> = decisions(&events)
            .into_iter()
            .filter(|d| d["tool"] == "mcp")
            .cloned()
            .collect();
        (events, decided)
    };
    let (events, decided) = mcp_turn();
    assert_eq!(decided.len(), 1, "{}", pretty(&events));
    assert_eq!(
        (
            &decided[0]["decision"],
            &decided[0]["rule"],
            &decided[0]["input"]["mcp"]
        ),
        (&json!("deny"), &json!(0), &json!("calc/add")),
        "{}",
        pretty(&events)
    );
    assert!(!called(), "a denied MCP call reached the server");
    let allow = json!({"rules": [{"tool": "mcp", "mcp": "calc/add", "decision": "allow"}], "default": "deny"});
    h.set_policy(&session, allow);
    let (events, decided) = mcp_turn();
    assert_eq!(
        decided.first().map(|d| (&d["decision"], &d["by"])),
        Some((&json!("allow"), &json!("rule"))),
        "{}",
        pretty(&events)
    );
    assert!(called(), "an allowed MCP call did not reach the server");
}

/// The daemon's `agentplex_policy_decision_duration_seconds` histogram for the
/// agent: each bucket's bound (seconds) and how many answers took at most that.
fn decision_buckets(h: &Harness) -> Vec<(f64, u64)> {
    let metrics = h.api().get("/metrics").text().unwrap();
    let prefix = "agentplex_policy_decision_duration_seconds_bucket{";
    let agent = format!("agent=\"{}\"", h.agent.id);
    metrics
        .lines()
        .filter(|line| line.starts_with(prefix) && line.contains(&agent))
        .filter_map(|line| {
            let bound = line.split("le=\"").nth(1)?.split('"').next()?;
            let count = line.rsplit(' ').next()?.parse().ok()?;
            Some((bound.parse().unwrap_or(f64::INFINITY), count))
        })
        .collect()
}

/// Whether the agent is known to carry the case out without asking, whatever the
/// policy (docs/policies.md): Gemini CLI and Qwen Code run the commands they deem
/// read-only (`ls`, `echo`, `git status`...) unasked. The other agents are told by
/// their adapters to ask about everything a policy decides.
fn runs_unasked(agent: &str, case: &Case) -> bool {
    const READ_ONLY: [&str; 5] = ["ls", "echo", "git status", "git diff", "git log"];
    let words = case.subject.trim_end_matches([' ', ';']);
    let words = words.split_whitespace().collect::<Vec<_>>().join(" ");
    let read_only = READ_ONLY
        .iter()
        .any(|prefix| words == *prefix || words.starts_with(&format!("{prefix} ")));
    matches!(agent, "gemini" | "qwen") && case.tool == "shell" && read_only
}

/// Whether the agent's model is not offered a tool whose every call the native
/// rules its adapter handed it deny (OpenCode leaves such tools out).
pub fn withholds_denied_tools(agent: &str) -> bool {
    agent == "opencode"
}

/// Whether `policy` denies every request of `kind` whatever it asks: no rule
/// that applies to the kind has a glob, and the strictest of those that apply
/// (else the default) is `deny`. The cases of such a kind are decided by the
/// agent's own rules, which an agent may apply by withholding the tool.
fn denied_outright(policy: &Value, kind: &str) -> bool {
    let globs = |rule: &Value| -> Vec<(&str, &[&str])> {
        [
            ("command", &["shell"][..]),
            ("path", &["read", "write"][..]),
            ("mcp", &["mcp"][..]),
        ]
        .into_iter()
        .filter(|(field, _)| rule.get(*field).is_some())
        .collect()
    };
    let mut decisions = Vec::new();
    for rule in policy["rules"].as_array().into_iter().flatten() {
        if rule["tool"].as_str().is_some_and(|tool| tool != kind) {
            continue;
        }
        let globs = globs(rule);
        if globs.iter().any(|(_, kinds)| !kinds.contains(&kind)) {
            continue;
        }
        if !globs.is_empty() {
            return false;
        }
        decisions.push(rule["decision"].as_str().unwrap_or_default());
    }
    match decisions.is_empty() {
        true => policy["default"] == "deny",
        false => decisions.contains(&"deny"),
    }
}

/// Whether a case the agent never asked about was not carried out either: a write
/// that did not happen (agents refuse some writes themselves before asking: a
/// file they have not read, a path outside their workspace).
fn refused(case: &Case) -> bool {
    case.written
        .as_ref()
        .is_some_and(|path| !std::fs::read_to_string(path).is_ok_and(|text| text.contains(WRITTEN)))
}

/// What a decision is matched to a case by: the command line, or the path.
fn subject(decided: &Value, places: &Places) -> String {
    let input = &decided["input"];
    match (input["command"].as_str(), input["paths"][0].as_str()) {
        (Some(command), _) => command.to_owned(),
        (None, Some(path)) => places.key(path),
        (None, None) => String::new(),
    }
}

fn text(value: &Value) -> String {
    value.as_str().unwrap_or_default().to_owned()
}

/// The table's links, in this sandbox; the file a link to the home points at.
fn make_links(table: &Value, places: &Places) {
    std::fs::create_dir_all(&places.directory.1).unwrap();
    for (link, target) in table["links"].as_object().unwrap() {
        let (link, target) = (places.reroot(link), places.reroot(target.as_str().unwrap()));
        let link = PathBuf::from(link);
        std::fs::create_dir_all(link.parent().unwrap()).unwrap();
        if target.starts_with(&places.home.1.display().to_string()) {
            let target = PathBuf::from(&target);
            std::fs::create_dir_all(target.parent().unwrap()).unwrap();
            std::fs::write(&target, "not a key").unwrap();
        }
        std::os::unix::fs::symlink(&target, &link).unwrap();
    }
}
