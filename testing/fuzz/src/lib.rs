//! A fuzzing driver that runs on stable Rust, inside `cargo test`.
//!
//! libFuzzer (`cargo fuzz`) needs a nightly compiler; this driver needs none. A
//! [`Target`] turns bytes into an input with [`arbitrary::Unstructured`] (as a
//! libFuzzer target would) and checks it; [`run`] feeds it pseudo-random bytes from
//! a seeded generator, case after case, and stops at the budget the environment
//! gives ([`Budget::from_env`]):
//!
//! | variable     | effect                                                              |
//! |--------------|---------------------------------------------------------------------|
//! | (none)       | the CI form: a fixed number of cases from a fixed seed (deterministic) |
//! | `FUZZ_SECS`  | the long form: run each target for that many seconds, from a new seed |
//! | `FUZZ_CASES` | run that many cases per target                                       |
//! | `FUZZ_SEED`  | the seed of the case sequence (decimal or `0x` hex)                  |
//! | `FUZZ_CASE`  | replay one case, by the case seed a failure printed                  |
//!
//! A case that panics is reported with its case seed and the input it generated,
//! written to a file under the system's temporary folder, then the panic goes on
//! (the test fails). Every run prints its figures: cases, cases per second, the
//! slowest case.
//!
//! [`mutate`] has the mutators the targets share: JSON-aware (values replaced by
//! other types, deep nesting, huge strings, parts of other inputs spliced in) and
//! plain-text ones.

#![warn(missing_docs)]

use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

pub use arbitrary::{self, Unstructured};

pub mod mutate;

/// The seed of the CI form, so that CI runs the same cases every time.
const CI_SEED: u64 = 0x5eed_f0ca_cc1a;
/// Bytes each case draws its decisions from.
const CASE_BYTES: usize = 8 << 10;

/// Something to fuzz: generates an input from bytes, then checks it.
pub trait Target {
    /// One generated input.
    type Input;

    /// An input from the bytes of `u`. `Err` (the bytes ran out) skips the case.
    fn generate(&mut self, u: &mut Unstructured<'_>) -> arbitrary::Result<Self::Input>;

    /// Runs `input` through the code under test; panics when a property fails.
    fn check(&mut self, input: &Self::Input);

    /// `input` as text, kept when it fails (a transcript, a debug dump...).
    fn describe(&self, input: &Self::Input) -> String;
}

/// When a run stops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// After this many cases.
    Cases(u64),
    /// After this long.
    Time(Duration),
}

/// How one target is run: its limit and its seed, or the one case to replay.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// When the run stops.
    pub limit: Limit,
    /// Seed of the sequence of case seeds.
    pub seed: u64,
    /// A single case seed to replay instead of a run.
    pub replay: Option<u64>,
}

impl Budget {
    /// The budget the environment asks for (see the crate's documentation);
    /// `ci_cases` cases from a fixed seed when it asks for nothing.
    pub fn from_env(ci_cases: u64) -> Self {
        Self::from_vars(ci_cases, |name| std::env::var(name).ok())
    }

    fn from_vars(ci_cases: u64, var: impl Fn(&str) -> Option<String>) -> Self {
        let number = |name: &str| {
            var(name).map(|text| {
                parse_number(&text).unwrap_or_else(|| panic!("{name}={text:?} is not a number"))
            })
        };
        let limit = match (number("FUZZ_CASES"), number("FUZZ_SECS")) {
            (Some(cases), _) => Limit::Cases(cases),
            (None, Some(secs)) => Limit::Time(Duration::from_secs(secs)),
            (None, None) => Limit::Cases(ci_cases),
        };
        let seed = number("FUZZ_SEED").unwrap_or_else(|| match limit {
            Limit::Time(_) => clock_seed(),
            Limit::Cases(_) => CI_SEED,
        });
        Self {
            limit,
            seed,
            replay: number("FUZZ_CASE"),
        }
    }
}

/// `123` or `0x7b`.
fn parse_number(text: &str) -> Option<u64> {
    let text = text.trim();
    match text.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => text.parse().ok(),
    }
}

/// A seed that differs from run to run, for long runs.
fn clock_seed() -> u64 {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    now.as_nanos() as u64 ^ u64::from(std::process::id())
}

/// What a run did.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// The target's name.
    pub name: String,
    /// The budget it ran with.
    pub budget: Budget,
    /// Cases generated and checked.
    pub cases: u64,
    /// Cases skipped because their bytes ran out while generating.
    pub skipped: u64,
    /// Wall time of the run.
    pub elapsed: Duration,
    /// The slowest case: its seed and how long it took.
    pub slowest: (u64, Duration),
}

impl Report {
    /// Cases per second.
    pub fn rate(&self) -> f64 {
        self.cases as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "fuzz {}: {} cases ({} skipped) in {:.1} s, {:.0}/s, seed {:#x}, slowest case {:#x} ({} ms)",
            self.name,
            self.cases,
            self.skipped,
            self.elapsed.as_secs_f64(),
            self.rate(),
            self.budget.seed,
            self.slowest.0,
            self.slowest.1.as_millis()
        )
    }
}

/// Runs `target` within the environment's budget ([`Budget::from_env`] with
/// `ci_cases`) and prints its [`Report`]; panics with the failing case's seed, and
/// where its input was kept, when a case fails.
pub fn run<T: Target>(name: &str, ci_cases: u64, target: &mut T) -> Report {
    let report = run_with(name, Budget::from_env(ci_cases), target);
    eprintln!("{report}");
    report
}

/// [`run`] with an explicit budget.
pub fn run_with<T: Target>(name: &str, budget: Budget, target: &mut T) -> Report {
    let started = Instant::now();
    let mut report = Report {
        name: name.to_owned(),
        budget,
        cases: 0,
        skipped: 0,
        elapsed: Duration::ZERO,
        slowest: (0, Duration::ZERO),
    };
    let mut seeds = fastrand::Rng::with_seed(budget.seed);
    let mut bytes = vec![0u8; CASE_BYTES];
    loop {
        let done = match budget.limit {
            _ if budget.replay.is_some() => report.cases + report.skipped >= 1,
            Limit::Cases(cases) => report.cases + report.skipped >= cases,
            Limit::Time(time) => started.elapsed() >= time,
        };
        if done {
            break;
        }
        let case = budget.replay.unwrap_or_else(|| seeds.u64(..));
        fastrand::Rng::with_seed(case).fill(&mut bytes);
        let case_started = Instant::now();
        let Ok(input) = target.generate(&mut Unstructured::new(&bytes)) else {
            report.skipped += 1;
            continue;
        };
        if let Err(panic) = catch_unwind(AssertUnwindSafe(|| target.check(&input))) {
            let kept = keep_failure(name, case, &target.describe(&input));
            eprintln!(
                "fuzz {name}: case {case:#x} failed; its input: {kept}; replay it with \
                 FUZZ_CASE={case:#x} (run seed {:#x})",
                budget.seed
            );
            resume_unwind(panic);
        }
        let took = case_started.elapsed();
        if took > report.slowest.1 {
            report.slowest = (case, took);
        }
        report.cases += 1;
    }
    report.elapsed = started.elapsed();
    report
}

/// Writes a failing case's input to `<tmp>/agentplex-fuzz/NAME-CASE.txt`;
/// returns where (or why it could not).
fn keep_failure(name: &str, case: u64, input: &str) -> String {
    let dir = std::env::temp_dir().join("agentplex-fuzz");
    let path = dir.join(format!("{name}-{case:x}.txt"));
    match std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(&path, input)) {
        Ok(()) => path.display().to_string(),
        Err(error) => format!("not kept ({error})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Takes two bytes per case; fails on a chosen value.
    struct Pairs {
        seen: Vec<u16>,
        fail_on: Option<u16>,
    }

    impl Target for Pairs {
        type Input = u16;
        fn generate(&mut self, u: &mut Unstructured<'_>) -> arbitrary::Result<u16> {
            u.arbitrary()
        }
        fn check(&mut self, input: &u16) {
            self.seen.push(*input);
            assert_ne!(Some(*input), self.fail_on, "the chosen value");
        }
        fn describe(&self, input: &u16) -> String {
            input.to_string()
        }
    }

    fn budget(limit: Limit, seed: u64, replay: Option<u64>) -> Budget {
        Budget {
            limit,
            seed,
            replay,
        }
    }

    #[test]
    fn the_same_seed_runs_the_same_cases() {
        let run_of = |seed| {
            let mut target = Pairs {
                seen: Vec::new(),
                fail_on: None,
            };
            let report = run_with("pairs", budget(Limit::Cases(50), seed, None), &mut target);
            assert_eq!(report.cases, 50);
            target.seen
        };
        let first = run_of(1);
        assert_eq!(first, run_of(1));
        assert_ne!(first, run_of(2));
    }

    #[test]
    fn a_failing_case_is_reported_and_replays_alone() {
        let mut target = Pairs {
            seen: Vec::new(),
            fail_on: None,
        };
        run_with("pairs", budget(Limit::Cases(20), 7, None), &mut target);
        let victim = target.seen[13];
        let mut failing = Pairs {
            seen: Vec::new(),
            fail_on: Some(victim),
        };
        let failed = catch_unwind(AssertUnwindSafe(|| {
            run_with("pairs", budget(Limit::Cases(20), 7, None), &mut failing)
        }));
        assert!(failed.is_err(), "the case with {victim} fails the run");
        assert_eq!(failing.seen.last(), Some(&victim), "it stops there");

        // The case seed of the 14th case replays exactly that input.
        let mut seeds = fastrand::Rng::with_seed(7);
        let case = (0..14).map(|_| seeds.u64(..)).last().unwrap();
        let mut replay = Pairs {
            seen: Vec::new(),
            fail_on: None,
        };
        let report = run_with(
            "pairs",
            budget(Limit::Cases(20), 7, Some(case)),
            &mut replay,
        );
        assert_eq!((report.cases, replay.seen), (1, vec![victim]));
    }

    #[test]
    fn a_time_limit_stops_the_run() {
        let mut target = Pairs {
            seen: Vec::new(),
            fail_on: None,
        };
        let limit = Limit::Time(Duration::from_millis(50));
        let report = run_with("pairs", budget(limit, 3, None), &mut target);
        assert!(report.cases > 0 && report.elapsed >= Duration::from_millis(50));
    }

    #[test]
    fn the_environment_picks_the_form() {
        let vars = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(key, _)| *key == name)
                    .map(|(_, value)| (*value).to_owned())
            }
        };
        let ci = Budget::from_vars(10, vars(&[]));
        assert_eq!(ci, budget(Limit::Cases(10), CI_SEED, None));
        let long = Budget::from_vars(10, vars(&[("FUZZ_SECS", "600"), ("FUZZ_SEED", "0x10")]));
        assert_eq!(
            long,
            budget(Limit::Time(Duration::from_secs(600)), 16, None)
        );
        let replay = Budget::from_vars(10, vars(&[("FUZZ_CASE", "0xff")]));
        assert_eq!(replay.replay, Some(255));
    }
}
