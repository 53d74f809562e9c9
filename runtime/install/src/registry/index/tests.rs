//! The index as the registry publishes it (the snapshot the tests ship), and the
//! order distributions are tried in.

use agentplex_host::{Arch, Libc, Os, Platform};

use super::*;

fn snapshot() -> Index {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../testing/acp-registry/registry.json"
    );
    Index::parse(&std::fs::read_to_string(path).unwrap()).unwrap()
}

const LINUX_X64: Platform = Platform {
    os: Os::Linux,
    arch: Arch::X8664,
    libc: Some(Libc::Gnu),
};

#[test]
fn the_published_index_reads_with_every_kind_of_distribution() {
    let index = snapshot();
    assert!(index.agents.len() >= 10, "{}", index.agents.len());
    let claude = index.get("claude-code-acp").unwrap();
    assert_eq!(claude.kinds(), ["npx"]);
    let codex = index.get("codex-acp").unwrap();
    assert_eq!(codex.kinds(), ["binary"]);
    let release = &codex.distribution.binary.as_ref().unwrap()["linux-x86_64"];
    assert!(
        release.archive.ends_with("x86_64-unknown-linux-gnu.tar.gz"),
        "{release:?}"
    );
    assert_eq!(release.cmd, "./codex-acp");
    let auggie = index.get("auggie").unwrap();
    let Some(npx) = &auggie.distribution.npx else {
        panic!("{auggie:?}")
    };
    assert_eq!(npx.args, ["--acp"]);
    assert!(!npx.env.is_empty());
}

#[test]
fn packages_come_before_archives_and_the_preference_filters_them() {
    let mut entry = snapshot().get("codex-acp").unwrap().clone();
    entry.distribution.npx = Some(Package {
        package: "@vendor/tool@1.0.0".into(),
        cmd: None,
        args: Vec::new(),
        env: BTreeMap::new(),
    });
    let kinds = |sources| {
        entry
            .distributions(&LINUX_X64, sources)
            .iter()
            .map(Distribution::kind)
            .collect::<Vec<_>>()
    };
    assert_eq!(kinds(SourcePreference::Auto), ["npx", "binary"]);
    assert_eq!(kinds(SourcePreference::Npm), ["npx"]);
    assert_eq!(kinds(SourcePreference::Release), ["binary"]);
    let windows = Platform {
        os: Os::Windows,
        arch: Arch::Aarch64,
        libc: None,
    };
    let archives = entry.distributions(&windows, SourcePreference::Release);
    let [Distribution::Archive(release)] = archives.as_slice() else {
        panic!("{archives:?}")
    };
    assert!(release.archive.ends_with("aarch64-pc-windows-msvc.zip"));
}

#[test]
fn an_index_with_an_unusable_id_or_shape_is_refused() {
    let bad_id = r#"{"version":"1.0.0","agents":[{"id":"../x","name":"X","version":"1.0.0",
        "description":"","distribution":{"npx":{"package":"x"}}}]}"#;
    assert!(matches!(Index::parse(bad_id), Err(IndexError::InvalidId(id)) if id == "../x"));
    assert!(matches!(Index::parse("[]"), Err(IndexError::Shape(_))));
    assert!(matches!(
        Index::parse(r#"{"version":"1.0.0","agents":[{"id":"x"}]}"#),
        Err(IndexError::Shape(_))
    ));
}

#[test]
fn platforms_have_the_registry_names() {
    assert_eq!(platform_name(&LINUX_X64), "linux-x86_64");
    let mac = Platform {
        os: Os::Macos,
        arch: Arch::Aarch64,
        libc: None,
    };
    assert_eq!(platform_name(&mac), "darwin-aarch64");
}
