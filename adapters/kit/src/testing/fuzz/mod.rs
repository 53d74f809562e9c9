//! Fuzzing a session machine with mutated transcripts (the `agentplex-fuzz`
//! driver: stable Rust, inside `cargo test`; `FUZZ_SECS=600` for a long run).
//!
//! A [`Corpus`] holds an adapter's recorded transcripts and native payloads (the
//! stdout lines, SSE data and HTTP bodies in them, plus capture files of raw native
//! lines). Each case takes one transcript and mutates it: payloads changed as JSON
//! (other types, deep nesting, huge strings, parts of other payloads) or as text,
//! payloads swapped for captured ones, inputs dropped, repeated, reordered or
//! inserted (cancels, exits, timers, replies...), fields changed. The case is fed
//! the way the daemon feeds a session: a message only when no turn runs, a cancel
//! only during a turn, a reply only to a pending request (a reply with an empty
//! `id` answers the oldest one), nothing after `session.ended`; a reply the
//! session refuses is fine.
//!
//! The properties, for any input: no panic (a guest panic is a trap that ends the
//! session); every action is one the host accepts (non-empty ids, JSON fields that
//! are JSON, a program to spawn, files inside the scratch folder), since the host
//! ends the session on any other; and the session restores from its snapshot (taken at a few points spread over the
//! case, the last after its last input), which the restored session gives back unchanged.
//!
//! The order of items and turns (an item starts once, before its deltas and its
//! completion, and completes once; turns do not nest) is what recordings must keep
//! ([`super::shape`]), but garbage may break it without harm to the session (the
//! daemon tracks no item; it writes a lone `item.completed` itself after a
//! restart): breaks are counted and reported, and fail the test only with
//! `FUZZ_STRICT=1`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::time::{Duration, Instant};

use agentplex_fuzz::{self as fuzz, arbitrary, mutate, Unstructured};
use serde_json::{json, Value};

use super::replay::{config_of, try_feed, Transcripts};
use crate::transcript::render_action;
use crate::types::Action;
use crate::SessionMachine;

mod rules;

use rules::{Daemon, Shape};

/// Cases per adapter in the CI form (a few seconds each on a loaded machine).
const CI_CASES: u64 = 500;

/// How many times a case snapshots and restores the session, evenly spread, the
/// last after its last input (snapshotting after every input would take most of
/// the time).
const SNAPSHOTS: usize = 8;

/// Transcripts and native payloads to mutate.
#[derive(Debug, Clone, Default)]
pub struct Corpus {
    transcripts: Vec<Vec<Value>>,
    payloads: Vec<String>,
}

impl Corpus {
    /// The transcripts of the folders `transcripts` and the capture files (one raw
    /// native line a line, `*.jsonl`) of the folders `captures`, all relative to
    /// `manifest_dir` (pass `env!("CARGO_MANIFEST_DIR")`).
    pub fn of_crate(manifest_dir: &str, transcripts: &[&str], captures: &[&str]) -> Self {
        let root = Path::new(manifest_dir);
        let mut corpus = Self::default();
        for dir in transcripts {
            let folder = Transcripts::new(root.join(dir));
            for name in folder.names() {
                corpus.add_transcript(folder.inputs(&name));
            }
        }
        for dir in captures {
            for path in jsonl_files(&root.join(dir)) {
                let text = std::fs::read_to_string(&path)
                    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                corpus.payloads.extend(
                    text.lines()
                        .filter(|line| !line.trim().is_empty())
                        .map(str::to_owned),
                );
            }
        }
        assert!(!corpus.transcripts.is_empty(), "no transcript to fuzz");
        corpus
    }

    /// Adds a transcript, and its payloads to the donors.
    pub fn add_transcript(&mut self, inputs: Vec<Value>) {
        for input in &inputs {
            if let Some(payload) = payload_key(input).and_then(|key| input[key].as_str()) {
                self.payloads.push(payload.to_owned());
            }
        }
        self.transcripts.push(inputs);
    }

    /// Fuzzes session type `S` with mutations of this corpus (see the module);
    /// panics on the first case that breaks a property. Prints how often each
    /// rule of order was broken.
    pub fn fuzz<S: SessionMachine>(&self, name: &str) -> fuzz::Report {
        let mut target = SessionTarget::<S>::new(self);
        target.strict = std::env::var_os("FUZZ_STRICT").is_some_and(|v| v == "1");
        let report = fuzz::run(name, CI_CASES, &mut target);
        for (rule, cases) in &target.order_breaks {
            eprintln!("fuzz {name}: {cases} cases broke the order rule: {rule}");
        }
        let (took, input) = &target.slowest_input;
        eprintln!(
            "fuzz {name}: slowest input {} ms: {input}",
            took.as_millis()
        );
        report
    }
}

/// The `*.jsonl` files of `dir` but `*.expected.jsonl`, sorted.
fn jsonl_files(dir: &Path) -> Vec<std::path::PathBuf> {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let mut files: Vec<_> = entries
        .filter_map(|entry| Some(entry.ok()?.path()))
        .filter(|path| {
            let name = path.to_string_lossy();
            name.ends_with(".jsonl") && !name.ends_with(".expected.jsonl")
        })
        .collect();
    files.sort();
    files
}

/// The field of `input` that carries native text, if any.
fn payload_key(input: &Value) -> Option<&'static str> {
    match input["input"].as_str()? {
        "stdout" | "stderr" => Some("line"),
        "sseEvent" => Some("data"),
        "httpResponse" => Some("body"),
        "sendMessage" => Some("text"),
        _ => None,
    }
}

/// The fuzz target: mutated transcripts fed to `S`.
struct SessionTarget<'a, S> {
    corpus: &'a Corpus,
    /// Whether a broken rule of order fails the case.
    strict: bool,
    /// Each rule of order broken, and in how many cases.
    order_breaks: BTreeMap<&'static str, u64>,
    /// The input the session took longest to handle (the host gives a call 2 s).
    slowest_input: (Duration, String),
    session: std::marker::PhantomData<fn() -> S>,
}

impl<'a, S> SessionTarget<'a, S> {
    fn new(corpus: &'a Corpus) -> Self {
        Self {
            corpus,
            strict: false,
            order_breaks: BTreeMap::new(),
            slowest_input: (Duration::ZERO, String::new()),
            session: std::marker::PhantomData,
        }
    }
}

impl<S: SessionMachine> fuzz::Target for SessionTarget<'_, S> {
    type Input = Vec<Value>;

    fn generate(&mut self, u: &mut Unstructured<'_>) -> arbitrary::Result<Vec<Value>> {
        let mut inputs = u.choose(&self.corpus.transcripts)?.clone();
        for _ in 0..u.int_in_range(1..=8)? {
            mutate_inputs(u, &mut inputs, self.corpus)?;
        }
        Ok(inputs)
    }

    fn check(&mut self, inputs: &Vec<Value>) {
        let broken = run_case::<S>(inputs, &mut self.slowest_input);
        assert!(
            !self.strict || broken.is_empty(),
            "broken order: {broken:?}"
        );
        for rule in broken {
            *self.order_breaks.entry(rule).or_default() += 1;
        }
    }

    fn describe(&self, inputs: &Vec<Value>) -> String {
        inputs.iter().map(|input| format!("{input}\n")).collect()
    }
}

/// One mutation of a transcript; its `create` line stays first.
fn mutate_inputs(
    u: &mut Unstructured<'_>,
    inputs: &mut Vec<Value>,
    corpus: &Corpus,
) -> arbitrary::Result<()> {
    let first = usize::from(inputs.first().is_some_and(|i| i["input"] == "create"));
    let carriers: Vec<usize> = (0..inputs.len())
        .filter(|&i| payload_key(&inputs[i]).is_some())
        .collect();
    let anywhere = |u: &mut Unstructured<'_>, len: usize| u.int_in_range(first..=len.max(first));
    match u.int_in_range(0..=10)? {
        0..=3 if !carriers.is_empty() => {
            let input = &mut inputs[*u.choose(&carriers)?];
            let key = payload_key(input).expect("a carrier");
            let text = input[key].as_str().unwrap_or_default().to_owned();
            input[key] = mutate::payload(u, &text, &corpus.payloads)?.into();
        }
        4 if !carriers.is_empty() && !corpus.payloads.is_empty() => {
            let input = &mut inputs[*u.choose(&carriers)?];
            let key = payload_key(input).expect("a carrier");
            input[key] = u.choose(&corpus.payloads)?.clone().into();
        }
        5 => {
            let donor = u.choose(&corpus.transcripts)?;
            let sample = &donor[u.choose_index(donor.len())?];
            if let (Some(key), false) = (payload_key(sample), corpus.payloads.is_empty()) {
                let mut copy = sample.clone();
                copy[key] = u.choose(&corpus.payloads)?.clone().into();
                let at = anywhere(u, inputs.len())?;
                inputs.insert(at, copy);
            }
        }
        6 if inputs.len() > first => {
            let at = u.int_in_range(first..=inputs.len() - 1)?;
            inputs.remove(at);
        }
        7 if inputs.len() > first + 1 => {
            let at = u.int_in_range(first..=inputs.len() - 2)?;
            if u.ratio(1, 2)? {
                inputs.swap(at, at + 1);
            } else {
                let copy = inputs[at].clone();
                inputs.insert(at, copy);
            }
        }
        8 => {
            let control = control_input(u, inputs)?;
            let at = anywhere(u, inputs.len())?;
            inputs.insert(at, control);
        }
        9 if inputs.len() > first => {
            // The daemon makes the session's configuration, not the agent.
            let at = u.int_in_range(first..=inputs.len() - 1)?;
            let input = &mut inputs[at];
            let kind = input["input"].clone();
            mutate::value(u, input, &corpus.payloads)?;
            if !input.is_object() {
                *input = json!({});
            }
            input["input"] = kind;
        }
        _ => {
            let cut = anywhere(u, inputs.len())?;
            inputs.truncate(cut);
            let donor = u.choose(&corpus.transcripts)?;
            let from = u.choose_index(donor.len())?;
            inputs.extend(
                donor[from..]
                    .iter()
                    .filter(|i| i["input"] != "create")
                    .cloned(),
            );
        }
    }
    Ok(())
}

/// An input the daemon sends on its own or for a client: cancels, exits, timers,
/// replies, messages, stream and spawn failures. Names of processes, timers,
/// streams and requests come from the transcript when it has some.
fn control_input(u: &mut Unstructured<'_>, inputs: &[Value]) -> arbitrary::Result<Value> {
    let names: Vec<&str> = inputs
        .iter()
        .flat_map(|input| ["process", "timer", "stream", "request"].map(|key| &input[key]))
        .filter_map(Value::as_str)
        .collect();
    let name = if names.is_empty() || u.ratio(1, 8)? {
        mutate::string(u)?
    } else {
        u.choose(&names)?.to_string()
    };
    let text = mutate::string(u)?;
    Ok(match u.int_in_range(0..=11)? {
        0 => json!({"input": "cancelTurn"}),
        1 => json!({"input": "terminate"}),
        2 => json!({"input": "exit", "process": name, "code": u.arbitrary::<Option<i32>>()?,
                    "signal": u.arbitrary::<Option<i32>>()?}),
        3 => json!({"input": "spawnFailed", "process": name, "message": text}),
        4 => json!({"input": "timer", "timer": name}),
        5 => json!({"input": "sendMessage", "text": text}),
        6 => json!({"input": "replyPermission", "id": "",
                    "reply": *u.choose(&["once", "always", "reject"])?}),
        7 => json!({"input": "replyQuestion", "id": "", "answers": [[text]]}),
        8 => json!({"input": "rejectQuestion", "id": ""}),
        9 => json!({"input": "sseClosed", "stream": name, "error": text}),
        10 => json!({"input": "httpError", "request": name, "message": text}),
        _ => json!({"input": "stderr", "process": name, "line": text}),
    })
}

/// Feeds `inputs` as the daemon would (see the module) and checks every property;
/// returns the rules of order that were broken.
/// `slowest` is updated when an input takes longer than it.
fn run_case<S: SessionMachine>(
    inputs: &[Value],
    slowest: &mut (Duration, String),
) -> BTreeSet<&'static str> {
    let mut inputs = inputs.iter().cloned().peekable();
    let config = match inputs.peek() {
        Some(first) if first["input"] == "create" => {
            config_of(&inputs.next().expect("peeked")["config"])
        }
        _ => config_of(&Value::Null),
    };
    let mut session = S::new(config.clone());
    let mut daemon = Daemon::default();
    let mut shape = Shape::default();
    let total = inputs.len();
    let every = total.div_ceil(SNAPSHOTS).max(1);
    for (n, mut input) in inputs.enumerate() {
        if daemon.ended {
            break;
        }
        if !daemon.admits(&mut input) {
            continue;
        }
        let started = Instant::now();
        let fed = try_feed(&mut session, &input);
        if started.elapsed() > slowest.0 {
            *slowest = (started.elapsed(), short(&input.to_string()));
        }
        let Ok(actions) = fed else {
            continue;
        };
        for action in &actions {
            if let Err(why) = shape.check(action) {
                let action = short(&render_action(action));
                panic!(
                    "{why}: {action}\n(after input {})",
                    short(&input.to_string())
                );
            }
            if let Action::Emit(emitted) = action {
                daemon.saw(&emitted.event);
            }
        }
        if (total - n - 1) % every != 0 {
            continue;
        }
        let bytes = session.snapshot();
        let input = short(&input.to_string());
        session = S::restore(config.clone(), &bytes)
            .unwrap_or_else(|e| panic!("the snapshot after {input} does not restore: {e}"));
        assert!(session.snapshot() == bytes, "restored after {input}");
    }
    shape.broken
}

/// `text` cut to its first 300 characters, for messages (inputs can be huge).
fn short(text: &str) -> String {
    match text.char_indices().nth(300) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// In a crate's tests: a test that fuzzes session type `$session` ([`Corpus::fuzz`])
/// with the transcripts of the folders `transcripts` and the capture files of the
/// folders `captures` (both relative to the crate).
#[macro_export]
macro_rules! fuzz_test {
    ($session:ty, transcripts: [$($transcripts:expr),*], captures: [$($captures:expr),*]) => {
        /// Mutated transcripts keep the session sound (the kit's `testing::fuzz`).
        #[test]
        fn fuzzed_inputs_keep_the_session_sound() {
            $crate::testing::fuzz::Corpus::of_crate(
                env!("CARGO_MANIFEST_DIR"),
                &[$($transcripts),*],
                &[$($captures),*],
            )
            .fuzz::<$session>(env!("CARGO_PKG_NAME"));
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reply::{Replier, Reply, ReplySession};

    struct Echo;

    impl Replier for Echo {
        fn reply(text: &str) -> Reply {
            Reply::Text(text.to_owned())
        }
    }

    fn corpus() -> Corpus {
        let mut corpus = Corpus::default();
        corpus.add_transcript(vec![
            json!({"input": "start"}),
            json!({"input": "sendMessage", "text": "hello"}),
            json!({"input": "sendMessage", "text": "again"}),
        ]);
        corpus
    }

    #[test]
    fn a_sound_session_passes() {
        let report = fuzz::run_with(
            "echo",
            fuzz::Budget {
                limit: fuzz::Limit::Cases(200),
                seed: 1,
                replay: None,
            },
            &mut SessionTarget::<ReplySession<Echo>> {
                strict: true,
                ..SessionTarget::new(&corpus())
            },
        );
        assert_eq!(report.cases + report.skipped, 200);
    }
}
