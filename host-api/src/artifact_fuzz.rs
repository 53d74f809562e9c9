//! Fuzzing how the host reads precompiled artifacts and compile cache entries back
//! (the `agentplex-fuzz` driver: stable Rust, inside `cargo test`;
//! `FUZZ_SECS=600` for a long run). Each case encodes an artifact (facts with odd
//! strings, arbitrary code, either encoding), damages it as a disk or a crash would
//! (bits flipped, cut short, bytes added, header fields overwritten with extreme
//! values, ranges copied over others), sometimes forges checksums that match the
//! damage, and reads it back with [`Artifact::decode`], [`Artifact::verified_code`]
//! and through a compile cache folder ([`CompileCache::load`]).
//!
//! The properties: no panic; an undamaged artifact reads back as written; a damaged
//! one (checksums not forged) is refused, or reads back exactly as written (the
//! damage cancelled out), never as anything else: not a field, not the facts, not
//! the code; the cache hands out an entry only when it is the one written for that
//! component and engine; a forged artifact either reads back as its fields say or
//! is refused with a bounded message.

use agentplex_fuzz::{self as fuzz, arbitrary::Result, mutate, Unstructured};

use super::*;
use crate::cache::{hex, CompileCache};
use crate::{Arch, CredentialKind, CredentialVariable, Libc, Os};

/// Cases in the CI form (a few seconds: the zstd cases compress at level 19).
const CI_CASES: u64 = 1_500;
/// The longest refusal message (it is logged as a warning).
const MAX_ERROR_BYTES: usize = 1024;

#[test]
fn fuzzed_artifacts_and_cache_entries_are_read_back_or_refused() {
    let mut target = Decode {
        cache_root: tempfile::tempdir().expect("a temporary folder"),
    };
    fuzz::run("host-artifact-decode", CI_CASES, &mut target);
}

/// What was written.
#[derive(Debug, Clone)]
struct Written {
    facts: AdapterFacts,
    compatibility: u64,
    source: Vec<u8>,
    code: Vec<u8>,
    encoding: Encoding,
}

/// One case: what was written, the bytes read back, and what was done to them.
#[derive(Debug)]
struct Case {
    written: Written,
    bytes: Vec<u8>,
    damage: Vec<&'static str>,
    /// The checksums were recomputed after the damage.
    forged: bool,
}

/// The fuzz target.
struct Decode {
    /// Where the compile cache folder of the cases is.
    cache_root: tempfile::TempDir,
}

impl fuzz::Target for Decode {
    type Input = Case;

    fn generate(&mut self, u: &mut Unstructured<'_>) -> Result<Case> {
        let written = Written {
            facts: facts(u)?,
            compatibility: *u.choose(&[0, 42, u64::MAX])?,
            source: u.arbitrary()?,
            // Starting with a byte no zstd frame starts with: Plain code is never
            // also a valid compressed form of something else.
            code: [b"code".as_slice(), u.arbitrary::<&[u8]>()?].concat(),
            encoding: *u.choose(&[Encoding::Plain, Encoding::Zstd])?,
        };
        let mut bytes = encode(
            &written.facts,
            written.compatibility,
            &written.source,
            &written.code,
            written.encoding == Encoding::Zstd,
        );
        let mut damage = Vec::new();
        for _ in 0..u.int_in_range(0..=3)? {
            damage.push(damage_once(u, &mut bytes)?);
        }
        let forged = !damage.is_empty() && u.ratio(1, 4)?;
        if forged {
            forge_checksums(&mut bytes);
        }
        Ok(Case {
            written,
            bytes,
            damage,
            forged,
        })
    }

    fn check(&mut self, case: &Case) {
        let read = Artifact::decode(&case.bytes)
            .and_then(|artifact| Ok((artifact.verified_code()?.into_owned(), artifact)));
        let written = &case.written;
        match &read {
            Ok((code, artifact)) if !case.forged => {
                assert_eq!(artifact.facts, written.facts, "facts read back changed");
                assert_eq!(artifact.compatibility, written.compatibility);
                assert_eq!(artifact.source_sha256, sha256(&written.source));
                assert!(
                    *code == written.code,
                    "code read back changed: {} bytes read, {} written",
                    code.len(),
                    written.code.len()
                );
            }
            Ok(_) => {}
            Err(error) => {
                assert!(
                    case.forged || !case.damage.is_empty(),
                    "an undamaged artifact is refused: {error}"
                );
                let text = error.to_string();
                assert!(text.len() <= MAX_ERROR_BYTES, "{} bytes", text.len());
            }
        }
        let source = sha256(&written.source);
        let loaded = cache_holding(self.cache_root.path(), &source, &case.bytes)
            .load(&source, written.compatibility);
        match loaded {
            Some(entry) if !case.forged => {
                assert_eq!(entry.facts, written.facts);
                assert!(entry.code == written.code, "the cache changed the code");
            }
            Some(entry) => {
                let (code, artifact) = read.expect("the cache took what decode refused");
                assert_eq!(entry.code, code);
                assert_eq!(entry.facts, artifact.facts);
            }
            None => assert!(
                case.forged || !case.damage.is_empty(),
                "the cache refused an undamaged entry"
            ),
        }
    }

    fn describe(&self, case: &Case) -> String {
        format!(
            "written: {:?}\ndamage: {:?}, checksums forged: {}\nbytes ({}): {}",
            case.written,
            case.damage,
            case.forged,
            case.bytes.len(),
            hex(&case.bytes)
        )
    }
}

/// The compile cache under `root`, its entry for `source` holding `bytes`.
fn cache_holding(root: &std::path::Path, source: &[u8; 32], bytes: &[u8]) -> CompileCache {
    let cache = CompileCache::new(root);
    let path = root
        .join("adapters")
        .join(format!("{}.precompiled", hex(source)));
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, bytes).unwrap();
    cache
}

/// One kind of damage to `bytes`; its name.
fn damage_once(u: &mut Unstructured<'_>, bytes: &mut Vec<u8>) -> Result<&'static str> {
    if bytes.is_empty() {
        bytes.extend(u.arbitrary::<Vec<u8>>()?);
        return Ok("bytes added to nothing");
    }
    let at = u.choose_index(bytes.len())?;
    Ok(match u.int_in_range(0..=5)? {
        0 => {
            bytes[at] ^= 1 << u.int_in_range(0..=7)?;
            "a bit flipped"
        }
        1 => {
            bytes.truncate(at);
            "cut short"
        }
        2 => {
            bytes.extend(u.arbitrary::<Vec<u8>>()?);
            "bytes added"
        }
        3 => {
            // A header field (format, encoding, compatibility, lengths) set to an
            // extreme value.
            const FIELDS: &[(usize, usize)] = &[(8, 4), (12, 4), (16, 8), (56, 4), (60, 8)];
            let &(offset, len) = u.choose(FIELDS)?;
            let value: u64 =
                *u.choose(&[0, 1, 2, u32::MAX as u64, u64::MAX, bytes.len() as u64])?;
            if let Some(field) = bytes.get_mut(offset..offset + len) {
                field.copy_from_slice(&value.to_le_bytes()[..len]);
            }
            "a header field overwritten"
        }
        4 => {
            let len = u.int_in_range(1..=64)?.min(bytes.len() - at);
            let from = u.choose_index(bytes.len() - len + 1)?;
            let copied = bytes[from..from + len].to_vec();
            bytes[at..at + len].copy_from_slice(&copied);
            "a range copied over another"
        }
        _ => {
            let zeros = u.int_in_range(1..=4096)?;
            bytes.splice(at..at, std::iter::repeat_n(0, zeros));
            "zeros inserted"
        }
    })
}

/// Recomputes both checksums of a damaged artifact, when its lengths still fit.
fn forge_checksums(bytes: &mut [u8]) {
    if bytes.len() < HEADER_LEN {
        return;
    }
    let facts_len = u32::from_le_bytes(bytes[56..60].try_into().unwrap()) as usize;
    let Some(facts) = bytes.get(HEADER_LEN..HEADER_LEN.saturating_add(facts_len)) else {
        return;
    };
    let head = head_checksum(&bytes[..FIELDS_LEN], facts);
    let code = sha256(&bytes[HEADER_LEN + facts_len..]);
    bytes[FIELDS_LEN..FIELDS_LEN + 32].copy_from_slice(&head);
    bytes[FIELDS_LEN + 32..HEADER_LEN].copy_from_slice(&code);
}

/// Facts with odd strings and a varying number of modes, models and plans.
fn facts(u: &mut Unstructured<'_>) -> Result<AdapterFacts> {
    let text = |u: &mut Unstructured<'_>| -> Result<String> {
        if u.ratio(1, 8)? {
            mutate::string(u)
        } else {
            u.arbitrary()
        }
    };
    let modes = (0..u.int_in_range(0..=3)?)
        .map(|_| {
            Ok(crate::AgentMode {
                id: text(u)?,
                name: text(u)?,
                description: text(u)?,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let models = (0..u.int_in_range(0..=3)?)
        .map(|_| {
            Ok(crate::Model {
                id: text(u)?,
                name: Some(text(u)?),
                variants: vec![text(u)?],
                default_variant: None,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(AdapterFacts {
        info: AdapterInfo {
            id: text(u)?,
            name: text(u)?,
            version: text(u)?,
            agent_versions: "*".into(),
            capabilities: vec![text(u)?],
            modes,
            default_mode: text(u)?,
            models,
            default_model: u.arbitrary()?,
            credential_env: vec![CredentialVariable {
                name: text(u)?,
                provider: text(u)?,
                kind: *u.choose(&[CredentialKind::ApiKey, CredentialKind::Setting])?,
            }],
            location_env: Vec::new(),
            builtin: u.arbitrary()?,
        },
        contract: text(u)?,
        version_args: u.arbitrary()?,
        install_plans: vec![(
            Platform {
                os: *u.choose(&[Os::Linux, Os::Macos, Os::Windows])?,
                arch: *u.choose(&[Arch::X8664, Arch::Aarch64])?,
                libc: *u.choose(&[None, Some(Libc::Gnu), Some(Libc::Musl)])?,
            },
            None,
        )],
        model_apis: Vec::new(),
        asks_for: Vec::new(),
    })
}
