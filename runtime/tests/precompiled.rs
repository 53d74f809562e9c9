//! Builtin adapters come precompiled and are loaded only when a session needs
//! them; components of the adapters folder are compiled once into the compile
//! cache. Precompiled code that does not fit the running engine, and damaged or
//! foreign cache entries, are compiled again, never loaded blindly.

mod common;

use std::path::{Path, PathBuf};

use agentplex_builtins::{builtin_registry, Builtin, BUILTIN_ADAPTERS};
use agentplex_host::artifact::{sha256, Artifact};
use agentplex_host::{
    AdapterOrigin, AdapterRegistry, HostConfig, Input, LoadedAdapter, MessagePart,
};
use common::api::*;
use common::{adapters_dir_with, test_guest, Daemon, Options};

/// Runs one echo turn through an adapter and returns how many actions it gave.
fn run_turn(adapter: &std::sync::Arc<LoadedAdapter>) -> usize {
    let mut session = adapter
        .new_session(common::adapter_session_config())
        .unwrap();
    session.handle(Input::Start).unwrap();
    let actions = session
        .handle(Input::SendMessage(vec![MessagePart::Text("hello".into())]))
        .unwrap();
    assert!(!actions.is_empty(), "a turn gives actions");
    actions.len()
}

/// The cache entries in a cache dir.
fn entries(cache: &Path) -> Vec<PathBuf> {
    let Ok(dir) = std::fs::read_dir(cache.join("adapters")) else {
        return Vec::new();
    };
    let mut entries: Vec<PathBuf> = dir
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "precompiled"))
        .collect();
    entries.sort();
    entries
}

fn host_with_cache(cache: &Path) -> HostConfig {
    HostConfig {
        cache_dir: Some(cache.to_owned()),
        ..HostConfig::default()
    }
}

#[test]
fn builtins_are_known_without_compiling_anything() {
    let cache = tempfile::tempdir().unwrap();
    let registry = builtin_registry(host_with_cache(cache.path())).unwrap();
    let adapters = registry.list();
    assert_eq!(adapters.len(), BUILTIN_ADAPTERS.len());
    for adapter in &adapters {
        assert!(!adapter.is_compiled(), "{} compiled at start", adapter.id());
        assert!(
            !adapter.info().modes.is_empty(),
            "{} has modes",
            adapter.id()
        );
        assert_eq!(adapter.contract(), "sandbox-agent:adapter@0.5.0");
        assert_eq!(
            adapter.facts().install_plans.len(),
            8,
            "install plans for every platform"
        );
    }

    // A session loads its own adapter, and only that one; nothing is compiled.
    let mock = registry.get("mock").unwrap();
    run_turn(&mock);
    assert!(mock.is_compiled());
    for adapter in registry.list().iter().filter(|a| a.id() != "mock") {
        assert!(!adapter.is_compiled(), "{} was loaded too", adapter.id());
    }
    assert!(
        entries(cache.path()).is_empty(),
        "the precompiled code was used as it is"
    );
}

/// Loads an adapter's code (an answer only its component gives).
fn load(adapter: &LoadedAdapter) -> Result<(), agentplex_host::HostError> {
    adapter.parse_latest_version("1.2.3").map(drop)
}

#[test]
fn builtins_compressed_against_the_base_load_from_their_own_code() {
    let base = BUILTIN_ADAPTERS
        .iter()
        .find(|builtin| !builtin.against_base)
        .expect("a base");
    let kin: Vec<&Builtin> = BUILTIN_ADAPTERS
        .iter()
        .filter(|builtin| builtin.against_base)
        .collect();
    assert_eq!(
        kin.len() + 1,
        BUILTIN_ADAPTERS.len(),
        "all but the base are deltas"
    );
    for builtin in &kin {
        // What differs from the base is what is stored.
        let (delta, whole) = (builtin.precompiled.unwrap(), base.precompiled.unwrap());
        assert!(
            delta.len() < whole.len(),
            "{}: {} bytes",
            builtin.name,
            delta.len()
        );
        assert!(builtin.compressed_wasm.len() < base.compressed_wasm.len());
    }

    let cache = tempfile::tempdir().unwrap();
    let registry = builtin_registry(host_with_cache(cache.path())).unwrap();
    for adapter in registry.list() {
        load(&adapter).unwrap_or_else(|e| panic!("{}: {e}", adapter.id()));
        assert!(adapter.is_compiled());
    }
    assert!(
        entries(cache.path()).is_empty(),
        "every builtin's own code was used"
    );

    // When the code does not fit the engine, a delta's WebAssembly is compiled.
    let config = HostConfig {
        memory_limit_bytes: 256 << 20,
        ..host_with_cache(cache.path())
    };
    let registry = builtin_registry(config).unwrap();
    let first = registry.get(&kin_id(&registry, kin[0])).unwrap();
    load(&first).unwrap();
    assert_eq!(
        entries(cache.path()).len(),
        1,
        "compiled from its WebAssembly"
    );

    // Without the base a delta cannot be read: a clear error, never other code.
    let registry = AdapterRegistry::new(host_with_cache(cache.path())).unwrap();
    let orphan = registry.add_builtin(kin[0], None).unwrap();
    let error = load(&orphan).unwrap_err().to_string();
    assert!(error.contains("decompress"), "{error}");
}

/// The agent id of an embedded builtin, as the registry knows it.
fn kin_id(registry: &AdapterRegistry, builtin: &Builtin) -> String {
    let origin = AdapterOrigin::Builtin(builtin.name.to_owned());
    let adapter = registry
        .list()
        .into_iter()
        .find(|adapter| *adapter.origin() == origin)
        .expect("registered");
    adapter.id().to_owned()
}

#[test]
fn a_memory_cap_below_the_default_keeps_the_precompiled_code() {
    // The smaller cap is the store's limiter's (runtime/tests/sandbox.rs shows it
    // enforced); the engine's settings, and so the code that fits it, stay the same.
    let cache = tempfile::tempdir().unwrap();
    let config = HostConfig {
        memory_limit_bytes: 32 << 20,
        ..host_with_cache(cache.path())
    };
    let registry = builtin_registry(config).unwrap();
    run_turn(&registry.get("mock").unwrap());
    assert_eq!(
        entries(cache.path()),
        Vec::<PathBuf>::new(),
        "nothing compiled"
    );
}

#[test]
fn precompiled_code_that_does_not_fit_the_engine_is_compiled_and_cached() {
    // A memory cap above the default changes the engine's settings: the embedded
    // code no longer fits and the mock is compiled from its WebAssembly, once.
    let cache = tempfile::tempdir().unwrap();
    let config = HostConfig {
        memory_limit_bytes: 256 << 20,
        ..host_with_cache(cache.path())
    };
    let registry = builtin_registry(config.clone()).unwrap();
    run_turn(&registry.get("mock").unwrap());
    let written = entries(cache.path());
    assert_eq!(written.len(), 1, "one cache entry: {written:?}");
    let modified = std::fs::metadata(&written[0]).unwrap().modified().unwrap();

    // A second daemon with the same settings loads that entry instead of compiling.
    let registry = builtin_registry(config).unwrap();
    run_turn(&registry.get("mock").unwrap());
    assert_eq!(entries(cache.path()), written);
    assert_eq!(
        std::fs::metadata(&written[0]).unwrap().modified().unwrap(),
        modified,
        "the entry was used, not rewritten"
    );
}

/// Whether the cache entry for `wasm` is sound and made from it.
fn entry_is_sound(entry: &Path, wasm: &[u8]) -> bool {
    let bytes = std::fs::read(entry).unwrap();
    Artifact::decode(&bytes).is_ok_and(|artifact| {
        artifact.source_sha256 == sha256(wasm) && artifact.verified_code().is_ok()
    })
}

#[test]
fn damaged_or_foreign_cache_entries_are_compiled_again() {
    let cache = tempfile::tempdir().unwrap();
    let probe = std::fs::read(test_guest("probe")).unwrap();
    let dropin = std::fs::read(test_guest("mock_dropin")).unwrap();
    let compile = |bytes: &[u8]| {
        let registry = AdapterRegistry::new(host_with_cache(cache.path())).unwrap();
        registry
            .load_bytes(AdapterOrigin::File("guest.wasm".into()), bytes)
            .unwrap()
    };
    compile(&probe);
    compile(&dropin);
    let written = entries(cache.path());
    assert_eq!(written.len(), 2);
    let (probe_entry, dropin_entry): (PathBuf, PathBuf) = {
        let probe_name = written
            .iter()
            .find(|path| entry_is_sound(path, &probe))
            .unwrap()
            .clone();
        let other = written.iter().find(|p| **p != probe_name).unwrap().clone();
        (probe_name, other)
    };
    let sound = std::fs::read(&probe_entry).unwrap();

    let mut flipped = sound.clone();
    *flipped.last_mut().unwrap() ^= 0x55;
    let damages: Vec<(&str, Vec<u8>)> = vec![
        ("a flipped byte in the code", flipped),
        ("a truncated write", sound[..sound.len() / 2].to_vec()),
        ("an empty file", Vec::new()),
        ("garbage", b"\x7fELF not a cache entry at all".repeat(50)),
        (
            "another component's entry",
            std::fs::read(&dropin_entry).unwrap(),
        ),
    ];
    for (what, bytes) in damages {
        std::fs::write(&probe_entry, &bytes).unwrap();
        let adapter = compile(&probe);
        assert_eq!(adapter.id(), "probe", "{what}: the probe loaded");
        assert!(
            entry_is_sound(&probe_entry, &probe),
            "{what}: the entry was rewritten"
        );
    }
}

#[test]
fn a_damaged_builtin_artifact_falls_back_to_compiling() {
    let mock = BUILTIN_ADAPTERS
        .iter()
        .find(|builtin| builtin.name.contains("mock"))
        .unwrap();
    let mut damaged = mock.precompiled.expect("mock is precompiled").to_vec();
    *damaged.last_mut().unwrap() ^= 1;
    let damaged: &'static [u8] = Box::leak(damaged.into_boxed_slice());
    for artifact in [Some(damaged), None] {
        let cache = tempfile::tempdir().unwrap();
        let registry = AdapterRegistry::new(host_with_cache(cache.path())).unwrap();
        let adapter = registry
            .add_builtin(
                &Builtin {
                    precompiled: artifact,
                    ..*mock
                },
                None,
            )
            .unwrap();
        // Without an artifact the facts come from compiling at once; a damaged
        // code section is found when the code is first loaded.
        assert_eq!(adapter.is_compiled(), artifact.is_none());
        run_turn(&adapter);
        assert_eq!(
            entries(cache.path()).len(),
            1,
            "compiled once, into the cache"
        );
    }
}

#[test]
fn a_daemon_compiles_only_the_adapters_folder_once_and_answers_meanwhile() {
    let cache = tempfile::tempdir().unwrap();
    let adapters = adapters_dir_with(&["mock_dropin"]);
    let start = |cache: &Path| {
        Daemon::start_with(Options {
            args: vec![
                "--adapters-dir".into(),
                adapters.path().display().to_string(),
            ],
            cache_dir: Some(cache.to_owned()),
            ..Options::default()
        })
    };
    let daemon = start(cache.path());
    let api = Api::new(&daemon);
    let mock = api.agent("mock");
    assert_eq!(mock["adapterVersion"], "99.0.0-dropin", "{mock}");
    api.create("m", "mock");
    assert_eq!(assistant_texts(&api.turn("m", "hello")), ["HELLO"]);
    // Only the dropped-in component was compiled; the builtins came precompiled.
    let written = entries(cache.path());
    assert_eq!(written.len(), 1, "{written:?}");
    drop(api);
    daemon.stop();

    // The next start takes it from the cache.
    let modified = std::fs::metadata(&written[0]).unwrap().modified().unwrap();
    let daemon = start(cache.path());
    let api = Api::new(&daemon);
    api.create("m2", "mock");
    assert_eq!(assistant_texts(&api.turn("m2", "again")), ["AGAIN"]);
    assert_eq!(
        std::fs::metadata(&written[0]).unwrap().modified().unwrap(),
        modified
    );
}
