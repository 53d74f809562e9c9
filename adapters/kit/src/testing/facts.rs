//! Checking an adapter's static facts against a table: its `info`, install plan and
//! version probes, in a JSON file next to its code (`src/facts.json`), so the table
//! reads like the facts it checks. [`crate::facts_test!`] writes the test.
//!
//! The table ([`assert_facts`]) is an object with
//!
//! - `info`: what `info` returns, but its `version` (the crate's, which changes with
//!   every release);
//! - `recipes`: by the version asked for (`default` when none is), the recipe
//!   `install-plan` gives every platform of [`platforms`] (`null`: none);
//! - `version_args`: what `version-args` returns (`null`: none);
//! - `versions`: what the agent prints for them → the version `parse-version` reads
//!   (`null`: none), and `latest_versions`: bodies of the latest-version document →
//!   the version `parse-latest-version` reads. Both may be left out.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::types::{Arch, Libc, Os, Platform};
use crate::Adapter;

/// Every platform the daemon may ask `install-plan` about, with the name it has in
/// the tables: `linux-x64-gnu`, `linux-arm64-musl`, `macos-arm64`, `windows-x64`...
pub fn platforms() -> Vec<(&'static str, Platform)> {
    let linux = |arch, libc| Platform::new(Os::Linux, arch, Some(libc));
    vec![
        ("linux-x64-gnu", linux(Arch::X8664, Libc::Gnu)),
        ("linux-x64-musl", linux(Arch::X8664, Libc::Musl)),
        ("linux-arm64-gnu", linux(Arch::Aarch64, Libc::Gnu)),
        ("linux-arm64-musl", linux(Arch::Aarch64, Libc::Musl)),
        ("macos-x64", Platform::new(Os::Macos, Arch::X8664, None)),
        ("macos-arm64", Platform::new(Os::Macos, Arch::Aarch64, None)),
        ("windows-x64", Platform::new(Os::Windows, Arch::X8664, None)),
        (
            "windows-arm64",
            Platform::new(Os::Windows, Arch::Aarch64, None),
        ),
    ]
}

/// `A`'s recipe for `version` on every platform of [`platforms`], as a JSON object
/// from platform name to recipe (`null` where there is none).
pub fn recipes<A: Adapter>(version: Option<&str>) -> Value {
    let table: Map<String, Value> = platforms()
        .into_iter()
        .map(|(name, platform)| {
            let recipe = A::install_plan(platform, version.map(str::to_owned));
            (name.to_owned(), to_json(recipe))
        })
        .collect();
    Value::Object(table)
}

/// A table of facts (see the module documentation).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Facts {
    info: Value,
    recipes: BTreeMap<String, Value>,
    version_args: Option<Vec<String>>,
    #[serde(default)]
    versions: BTreeMap<String, Option<String>>,
    #[serde(default)]
    latest_versions: BTreeMap<String, Option<String>>,
}

/// Panics, naming what differs, unless `A`'s static facts are the JSON table `facts`
/// (the text of a file such as `src/facts.json`; see the module documentation).
pub fn assert_facts<A: Adapter>(facts: &str) {
    let facts: Facts = serde_json::from_str(facts).expect("the facts table is valid");
    let mut info = to_json(A::info());
    if let Value::Object(fields) = &mut info {
        fields.remove("version");
    }
    assert_same("info", &info, &facts.info);
    for (version, expected) in facts.recipes {
        let asked = Some(version.as_str()).filter(|v| *v != "default");
        assert_same(
            &format!("recipes of {version}"),
            &recipes::<A>(asked),
            &expected,
        );
    }
    assert_eq!(A::version_args(), facts.version_args, "version_args");
    for (output, version) in facts.versions {
        let read = A::parse_version(output.clone());
        assert_eq!(read, version, "parse_version({output:?})");
    }
    for (body, version) in facts.latest_versions {
        let read = A::parse_latest_version(body.clone());
        assert_eq!(read, version, "parse_latest_version({body:?})");
    }
}

/// Panics, showing `actual`, when it is not `expected`.
fn assert_same(what: &str, actual: &Value, expected: &Value) {
    assert!(
        actual == expected,
        "the {what} differ from the table; they are:\n{}",
        serde_json::to_string_pretty(actual).unwrap_or_default(),
    );
}

/// A contract value as JSON.
fn to_json(value: impl serde::Serialize) -> Value {
    serde_json::to_value(value).expect("contract values serialize to JSON")
}

/// Writes the test of an adapter's static facts: `facts_test!(crate::MyAgent,
/// "facts.json")` in a `#[cfg(test)]` place of the crate checks `MyAgent` against
/// the table in that file (relative to the file that writes the test) with
/// [`assert_facts`].
#[macro_export]
macro_rules! facts_test {
    ($adapter:ty, $table:literal) => {
        /// The adapter's info, install recipes and version probes are the table's.
        #[test]
        fn static_facts_are_the_tables() {
            $crate::testing::facts::assert_facts::<$adapter>(include_str!($table));
        }
    };
}
