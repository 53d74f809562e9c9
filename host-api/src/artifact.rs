//! The precompiled form of an adapter component: what the host knows of the
//! adapter without running it (its [`AdapterFacts`]) and the component's machine
//! code, in one self-checking blob.
//!
//! Builtin adapters are precompiled when the daemon is built and embedded in the
//! binary; components from the adapters folder are precompiled once into the
//! compile cache. Either way nothing is loaded blindly: the header, both
//! checksums and the engine's own compatibility check must pass, or the blob is
//! refused and the component is compiled from its WebAssembly again. The checksums
//! catch damage (a truncated write, a flipped bit), not malice: whoever can write
//! the compile cache can write code the daemon runs, like whoever can write its
//! binary.
//!
//! Layout (integers little-endian):
//!
//! ```text
//! magic "SAGTPREC" | format u32 | code encoding u32 | compatibility u64
//! | source sha256 [32] | facts length u32 | code length u64 | head sha256 [32]
//! | code sha256 [32] | facts (JSON) | code (wasmtime's serialized component)
//! ```
//!
//! The head checksum covers every header field before it and the facts; the code
//! checksum covers the code. The code is stored as it is (cache entries, loaded
//! often) or zstd-compressed (artifacts embedded in the binary, 4x smaller); its
//! checksum covers the stored bytes. The facts are never compressed: a daemon
//! reads every builtin's at start.
//!
//! Builtins are built from the same kit, so most of their machine code repeats
//! from one to the next: embedded, all but one are compressed *against* that one
//! ([`Encoding::Delta`], zstd with the other's code as reference prefix), which
//! halves what their code takes in the binary.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::{AdapterInfo, InstallRecipe, ModelApi, Platform, ToolKind};

const MAGIC: &[u8; 8] = b"SAGTPREC";
/// Bumped whenever the layout or the facts' shape changes (2: the head checksum
/// covers the header's fields, not only the facts).
const FORMAT: u32 = 2;
/// The header's fields before the checksums (covered by the head checksum).
const FIELDS_LEN: usize = 8 + 4 + 4 + 8 + 32 + 4 + 8;
const HEADER_LEN: usize = FIELDS_LEN + 32 + 32;

/// How an artifact's code is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// As wasmtime serialized it.
    Plain,
    /// zstd-compressed.
    Zstd,
    /// zstd-compressed against another artifact's code (the base): the base's
    /// stored-code checksum (32 bytes), then a zstd frame made with the base's
    /// decoded code as reference prefix, carrying the checksum of what it decodes to.
    Delta,
}

impl Encoding {
    fn tag(self) -> u32 {
        match self {
            Encoding::Plain => 0,
            Encoding::Zstd => 1,
            Encoding::Delta => 2,
        }
    }

    fn from_tag(tag: u32) -> Option<Self> {
        match tag {
            0 => Some(Encoding::Plain),
            1 => Some(Encoding::Zstd),
            2 => Some(Encoding::Delta),
            _ => None,
        }
    }
}

/// What the host knows of an adapter without instantiating it: enough for
/// `GET /v1/agents`, modes, models, and finding the agent's binary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AdapterFacts {
    /// What `info()` returned.
    pub info: AdapterInfo,
    /// The contract version the component exports (`sandbox-agent:adapter@0.1.0`).
    pub contract: String,
    /// What `version-args()` returned.
    pub version_args: Option<Vec<String>>,
    /// What `install-plan(platform, none)` returned for every platform a daemon runs on.
    pub install_plans: Vec<(Platform, Option<InstallRecipe>)>,
    /// What `model-apis()` returned (none for components before contract 0.4.0,
    /// and in artifacts precompiled before it).
    #[serde(default)]
    pub model_apis: Vec<ModelApi>,
    /// What `asks-for()` returned: the kinds of action the agent asks permission
    /// for (none known for components before contract 0.5.0, and in artifacts
    /// precompiled before it).
    #[serde(default)]
    pub asks_for: Vec<ToolKind>,
}

/// Why a blob is not a usable artifact.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ArtifactError {
    #[error("not a precompiled adapter (bad magic number)")]
    NotAnArtifact,
    #[error("precompiled with format {0}, this daemon reads format {FORMAT}")]
    Format(u32),
    #[error("unknown code encoding {0}")]
    Encoding(u32),
    #[error("compressed code does not decompress: {0}")]
    Decompress(String),
    #[error("truncated ({0} bytes)")]
    Truncated(usize),
    #[error("compressed against another adapter's code, which is missing or not the one it names")]
    Base,
    #[error("the {0} do not match their checksum")]
    Checksum(&'static str),
    #[error("unreadable facts: {0}")]
    Facts(String),
}

/// A decoded artifact whose header and facts were checked. The code is checked
/// with [`Artifact::verified_code`] before it is handed to wasmtime.
#[derive(Debug)]
pub struct Artifact<'a> {
    /// The adapter's facts.
    pub facts: AdapterFacts,
    /// [`crate::engine::compatibility_key`] of the engine that compiled the code.
    pub compatibility: u64,
    /// SHA-256 of the component the code was compiled from.
    pub source_sha256: [u8; 32],
    encoding: Encoding,
    code: &'a [u8],
    code_sha256: [u8; 32],
}

impl<'a> Artifact<'a> {
    /// Reads an artifact's header and facts.
    pub fn decode(bytes: &'a [u8]) -> Result<Self, ArtifactError> {
        if bytes.len() < HEADER_LEN {
            return Err(if bytes.starts_with(MAGIC) || bytes.len() < MAGIC.len() {
                ArtifactError::Truncated(bytes.len())
            } else {
                ArtifactError::NotAnArtifact
            });
        }
        let mut reader = Reader(bytes);
        if reader.take(8) != MAGIC {
            return Err(ArtifactError::NotAnArtifact);
        }
        let format = u32::from_le_bytes(reader.array());
        if format != FORMAT {
            return Err(ArtifactError::Format(format));
        }
        let tag = u32::from_le_bytes(reader.array());
        let compatibility = u64::from_le_bytes(reader.array());
        let source_sha256 = reader.array();
        let facts_len = u32::from_le_bytes(reader.array()) as usize;
        let code_len = u64::from_le_bytes(reader.array());
        let head_sha256: [u8; 32] = reader.array();
        let code_sha256 = reader.array();
        let body = reader.0;
        if usize::try_from(code_len)
            .ok()
            .and_then(|c| c.checked_add(facts_len))
            != Some(body.len())
        {
            return Err(ArtifactError::Truncated(bytes.len()));
        }
        let (facts, code) = body.split_at(facts_len);
        if head_sha256 != head_checksum(&bytes[..FIELDS_LEN], facts) {
            return Err(ArtifactError::Checksum("header and facts"));
        }
        let encoding = Encoding::from_tag(tag).ok_or(ArtifactError::Encoding(tag))?;
        let facts =
            serde_json::from_slice(facts).map_err(|e| ArtifactError::Facts(e.to_string()))?;
        Ok(Self {
            facts,
            compatibility,
            source_sha256,
            encoding,
            code,
            code_sha256,
        })
    }

    /// The stored code (still compressed if it was); its checksum is checked when it
    /// is decoded, so merely knowing an artifact reads none of its code.
    pub fn code(&self) -> Stored<'a> {
        Stored {
            encoding: self.encoding,
            bytes: self.code,
            sha256: self.code_sha256,
        }
    }

    /// The compiled code, checked and decompressed.
    pub fn verified_code(&self) -> Result<Cow<'a, [u8]>, ArtifactError> {
        self.code().decode()
    }
}

/// An artifact's code as stored, with the checksum it must match.
#[derive(Debug, Clone, Copy)]
pub struct Stored<'a> {
    encoding: Encoding,
    bytes: &'a [u8],
    sha256: [u8; 32],
}

impl<'a> Stored<'a> {
    /// The code as wasmtime serialized it, once the stored bytes matched their checksum.
    pub fn decode(&self) -> Result<Cow<'a, [u8]>, ArtifactError> {
        self.decode_with(None)
    }

    /// [`Stored::decode`] for code that may be compressed against `base` (the
    /// stored code of the artifact it names; a base is never itself a delta).
    pub fn decode_with(&self, base: Option<&Stored<'_>>) -> Result<Cow<'a, [u8]>, ArtifactError> {
        if sha256(self.bytes) != self.sha256 {
            return Err(ArtifactError::Checksum("compiled code"));
        }
        match self.encoding {
            Encoding::Plain => Ok(Cow::Borrowed(self.bytes)),
            Encoding::Zstd => decompress(self.bytes).map(Cow::Owned),
            Encoding::Delta => {
                let (named, frame) = self
                    .bytes
                    .split_at_checked(32)
                    .ok_or(ArtifactError::Truncated(self.bytes.len()))?;
                let base = base
                    .filter(|base| base.sha256 == named && base.encoding != Encoding::Delta)
                    .ok_or(ArtifactError::Base)?;
                decompress_against(frame, &base.decode()?).map(Cow::Owned)
            }
        }
    }
}

pub use agentplex_compression::{compress, compress_against, sha256};

/// Undoes [`compress`].
pub fn decompress(bytes: &[u8]) -> Result<Vec<u8>, ArtifactError> {
    agentplex_compression::decompress(bytes).map_err(|e| ArtifactError::Decompress(e.to_string()))
}

/// Undoes [`compress_against`] given the same `base`.
pub fn decompress_against(bytes: &[u8], base: &[u8]) -> Result<Vec<u8>, ArtifactError> {
    agentplex_compression::decompress_against(bytes, base)
        .map_err(|e| ArtifactError::Decompress(e.to_string()))
}

/// Re-encodes `artifact`'s code against `base`'s ([`Encoding::Delta`]); the rest
/// of the artifact is unchanged. Both must be readable artifacts; `base` must not
/// be a delta itself.
pub fn rebase(artifact: &[u8], base: &[u8]) -> Result<Vec<u8>, ArtifactError> {
    let artifact = Artifact::decode(artifact)?;
    let base = Artifact::decode(base)?;
    if base.encoding == Encoding::Delta {
        return Err(ArtifactError::Base);
    }
    let code = artifact.verified_code()?;
    let mut stored = base.code_sha256.to_vec();
    stored.extend(compress_against(&code, &base.verified_code()?));
    Ok(write(
        &artifact.facts,
        artifact.compatibility,
        artifact.source_sha256,
        &stored,
        Encoding::Delta,
    ))
}

/// Writes an artifact, its code zstd-compressed when `compressed` (a delta is
/// made from such an artifact with [`rebase`]).
pub fn encode(
    facts: &AdapterFacts,
    compatibility: u64,
    source: &[u8],
    code: &[u8],
    compressed: bool,
) -> Vec<u8> {
    let source = sha256(source);
    if compressed {
        write(
            facts,
            compatibility,
            source,
            &compress(code),
            Encoding::Zstd,
        )
    } else {
        write(facts, compatibility, source, code, Encoding::Plain)
    }
}

/// Lays out an artifact whose code is already stored as `encoding` says.
fn write(
    facts: &AdapterFacts,
    compatibility: u64,
    source_sha256: [u8; 32],
    code: &[u8],
    encoding: Encoding,
) -> Vec<u8> {
    let facts = serde_json::to_vec(facts).expect("adapter facts serialize");
    let mut out = Vec::with_capacity(HEADER_LEN + facts.len() + code.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT.to_le_bytes());
    out.extend_from_slice(&encoding.tag().to_le_bytes());
    out.extend_from_slice(&compatibility.to_le_bytes());
    out.extend_from_slice(&source_sha256);
    out.extend_from_slice(&(facts.len() as u32).to_le_bytes());
    out.extend_from_slice(&(code.len() as u64).to_le_bytes());
    out.extend_from_slice(&head_checksum(&out, &facts));
    out.extend_from_slice(&sha256(code));
    out.extend_from_slice(&facts);
    out.extend_from_slice(code);
    out
}

/// The head checksum: SHA-256 of the header's fields, then the facts.
fn head_checksum(fields: &[u8], facts: &[u8]) -> [u8; 32] {
    Sha256::new()
        .chain_update(fields)
        .chain_update(facts)
        .finalize()
        .into()
}

/// Reads fixed-size fields off the front of a slice already checked to be long enough.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> &'a [u8] {
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        head
    }

    fn array<const N: usize>(&mut self) -> [u8; N] {
        self.take(N).try_into().expect("length checked")
    }
}

#[cfg(test)]
#[path = "artifact_fuzz.rs"]
mod fuzz;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{CredentialKind, CredentialVariable, Os};

    fn facts() -> AdapterFacts {
        AdapterFacts {
            info: AdapterInfo {
                id: "probe".into(),
                name: "Probe".into(),
                version: "1.0.0".into(),
                agent_versions: "*".into(),
                capabilities: ["permissions", "tool-calls", "text-messages", "cancel"]
                    .map(str::to_owned)
                    .to_vec(),
                modes: vec![],
                default_mode: "build".into(),
                models: vec![],
                default_model: None,
                credential_env: vec![CredentialVariable {
                    name: "PROBE_KEY".into(),
                    provider: "probe".into(),
                    kind: CredentialKind::ApiKey,
                }],
                location_env: vec!["PROBE_HOME".into()],
                builtin: true,
            },
            contract: "sandbox-agent:adapter@0.2.0".into(),
            version_args: Some(vec!["--version".into()]),
            install_plans: vec![(
                Platform {
                    os: Os::Linux,
                    arch: crate::Arch::X8664,
                    libc: None,
                },
                None,
            )],
            model_apis: vec![crate::ModelApi {
                format: crate::ModelApiFormat::AnthropicMessages,
                provider: "anthropic".into(),
                default_base_url: "https://api.anthropic.com".into(),
                base_url_env: vec!["ANTHROPIC_BASE_URL".into()],
                key_env: vec!["ANTHROPIC_API_KEY".into()],
                pointing: crate::ModelApiPointing::Environment,
            }],
            asks_for: vec![ToolKind::Shell, ToolKind::Write],
        }
    }

    /// Facts kept before contract 0.4.0 have no `model_apis`: they read as none.
    #[test]
    fn facts_of_an_earlier_daemon_read_with_no_model_apis() {
        let mut json = serde_json::to_value(facts()).unwrap();
        json.as_object_mut().unwrap().remove("model_apis");
        let read: AdapterFacts = serde_json::from_value(json).unwrap();
        assert_eq!(read.model_apis, Vec::new());
        assert_eq!(read.info, facts().info);
    }

    /// Facts kept before contract 0.5.0 have no `asks_for`: they read as none.
    #[test]
    fn facts_of_an_earlier_daemon_read_with_no_asks_for() {
        let mut json = serde_json::to_value(facts()).unwrap();
        json.as_object_mut().unwrap().remove("asks_for");
        let read: AdapterFacts = serde_json::from_value(json).unwrap();
        assert_eq!(read.asks_for, Vec::new());
        assert_eq!(read.model_apis, facts().model_apis);
    }

    #[test]
    fn an_artifact_reads_back_what_was_written() {
        let code = b"machine code ".repeat(100);
        for compressed in [false, true] {
            let blob = encode(&facts(), 42, b"component", &code, compressed);
            let artifact = Artifact::decode(&blob).unwrap();
            assert_eq!(artifact.facts, facts());
            assert_eq!(artifact.compatibility, 42);
            assert_eq!(artifact.source_sha256, sha256(b"component"));
            assert_eq!(artifact.verified_code().unwrap().as_ref(), &code[..]);
            if compressed {
                assert!(blob.len() < code.len(), "compressed: {}", blob.len());
            }
        }
    }

    #[test]
    fn damaged_or_foreign_blobs_are_refused() {
        let blob = encode(&facts(), 42, b"component", b"machine code", false);
        assert_eq!(
            Artifact::decode(b"\x7fELF and more bytes than a header needs, surely, yes, many more bytes than that, plenty really").unwrap_err(),
            ArtifactError::NotAnArtifact
        );
        assert!(matches!(
            Artifact::decode(&blob[..blob.len() - 1]).unwrap_err(),
            ArtifactError::Truncated(_)
        ));
        assert!(matches!(
            Artifact::decode(&blob[..20]).unwrap_err(),
            ArtifactError::Truncated(_)
        ));
        let mut flipped = blob.clone();
        *flipped.last_mut().unwrap() ^= 1;
        assert_eq!(
            Artifact::decode(&flipped)
                .unwrap()
                .verified_code()
                .unwrap_err(),
            ArtifactError::Checksum("compiled code")
        );
        let mut facts_flipped = blob.clone();
        facts_flipped[HEADER_LEN + 3] ^= 1;
        assert_eq!(
            Artifact::decode(&facts_flipped).unwrap_err(),
            ArtifactError::Checksum("header and facts")
        );
        let mut newer = blob.clone();
        newer[8] = 99;
        assert_eq!(
            Artifact::decode(&newer).unwrap_err(),
            ArtifactError::Format(99)
        );
    }

    /// Two "builtins" sharing most of their code, as the kit's adapters do.
    fn kin() -> (Vec<u8>, Vec<u8>) {
        let shared: Vec<u8> = (0..200_000u32)
            .flat_map(|i| i.wrapping_mul(2_654_435_761).to_le_bytes())
            .collect();
        let mut base = shared.clone();
        base.extend_from_slice(b"the base's own code");
        let mut other = b"another adapter's own code".to_vec();
        other.extend_from_slice(&shared);
        (base, other)
    }

    #[test]
    fn a_delta_reads_back_against_its_base_only() {
        let (base_code, code) = kin();
        let base = encode(&facts(), 42, b"base", &base_code, true);
        let plain = encode(&facts(), 42, b"component", &code, true);
        let delta = rebase(&plain, &base).unwrap();
        assert!(
            delta.len() * 20 < plain.len(),
            "{} against {}",
            delta.len(),
            plain.len()
        );

        let artifact = Artifact::decode(&delta).unwrap();
        assert_eq!(artifact.facts, facts());
        assert_eq!(artifact.source_sha256, sha256(b"component"));
        let base_artifact = Artifact::decode(&base).unwrap();
        let decoded = artifact
            .code()
            .decode_with(Some(&base_artifact.code()))
            .unwrap();
        assert_eq!(decoded.as_ref(), &code[..]);

        // Without its base, or with another, it is refused: never other bytes.
        assert_eq!(artifact.verified_code().unwrap_err(), ArtifactError::Base);
        let stranger = encode(&facts(), 42, b"stranger", &code[..code.len() / 2], true);
        let stranger = Artifact::decode(&stranger).unwrap();
        assert_eq!(
            artifact
                .code()
                .decode_with(Some(&stranger.code()))
                .unwrap_err(),
            ArtifactError::Base
        );
        // A delta is no base.
        assert_eq!(rebase(&plain, &delta).unwrap_err(), ArtifactError::Base);
    }

    #[test]
    fn a_frame_decoded_against_the_wrong_prefix_fails_its_checksum() {
        let (base, bytes) = kin();
        let frame = compress_against(&bytes, &base);
        assert_eq!(decompress_against(&frame, &base).unwrap(), bytes);
        let mut other = base.clone();
        other[1000] ^= 0xff;
        assert!(matches!(
            decompress_against(&frame, &other),
            Err(ArtifactError::Decompress(_))
        ));
        assert!(decompress_against(&frame[..frame.len() / 2], &base).is_err());
    }

    /// Found by the fuzz target (format 1 checked the facts and the code only): a
    /// flipped bit in the encoding tag made the compressed code read as plain, and
    /// one in the compatibility key or the source hash went unnoticed.
    #[test]
    fn every_header_field_is_covered_by_a_checksum() {
        let blob = encode(&facts(), 42, b"component", b"machine code", true);
        for at in 12..FIELDS_LEN {
            let mut damaged = blob.clone();
            damaged[at] ^= 1;
            let error = Artifact::decode(&damaged).unwrap_err();
            assert!(
                matches!(
                    error,
                    ArtifactError::Checksum("header and facts") | ArtifactError::Truncated(_)
                ),
                "byte {at}: {error}"
            );
        }
    }
}
