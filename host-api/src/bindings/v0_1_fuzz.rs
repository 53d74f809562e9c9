//! Fuzzing the shim that runs 0.1.0 components (the `agentplex-fuzz` driver:
//! stable Rust, inside `cargo test`; `FUZZ_SECS=600` for a long run).
//!
//! Two targets:
//! - the conversions between the contracts: a 0.1.0 component's actions, info and
//!   install recipes read as 0.5.0 values, and the 0.5.0 values the host gives a
//!   0.1.0 component (platforms, message parts, replies, process exits, HTTP
//!   responses, SSE events, session configs). Properties: no panic; every field
//!   carried over unchanged (records and variants of the same shape print the same
//!   in both contracts); capabilities named once per flag set; credential variables
//!   read as documented; converted actions go through the host's checks without
//!   panicking.
//! - the checksum documents the host reads for 0.1.0 components (`sha256sum`
//!   output, bare digests, JSON manifests addressed by a JSON pointer in the URL's
//!   fragment), generated with the answer they must give, then sometimes mangled.
//!   Properties: no panic; a generated document gives its answer; any answer is a
//!   lowercase SHA-256 digest found in the document.

use agentplex_fuzz::{self as fuzz, arbitrary::Result, mutate, Unstructured};
use serde_json::{json, Value};

use super::*;
use crate::convert::fuzz::{emitted, id, list, option, path, text, url};

/// Cases of the conversions target in the CI form (a few seconds: megabyte
/// strings are printed to be compared).
const CI_CONVERSIONS: u64 = 1_000;
/// Cases of the checksums target in the CI form (about a second).
const CI_CHECKSUMS: u64 = 5_000;

#[test]
fn fuzzed_0_1_values_convert_field_for_field() {
    fuzz::run("host-v0_1-conversions", CI_CONVERSIONS, &mut Conversions);
}

#[test]
fn fuzzed_0_1_checksum_documents_are_read_as_documented() {
    fuzz::run("host-v0_1-checksums", CI_CHECKSUMS, &mut Checksums);
}

/// Values of both directions.
#[derive(Debug)]
struct Values {
    actions: Vec<OldAction>,
    /// The capability flags, in the record's order.
    flags: [bool; 22],
    info: old::AdapterInfo,
    /// The kind each credential variable must get, when its name says it.
    kinds: Vec<Option<new::CredentialKind>>,
    recipe: old::InstallRecipe,
    inputs: Inputs,
}

/// 0.5.0 values the host gives a 0.1.0 component.
#[derive(Debug)]
struct Inputs {
    platform: new::Platform,
    parts: Vec<NewPart>,
    reply: NewReply,
    exit: new_actions::ExitStatus,
    response: new_actions::HttpResponse,
    event: new_actions::SseEvent,
    config: new::SessionConfig,
}

/// The conversions target.
struct Conversions;

impl fuzz::Target for Conversions {
    type Input = Values;

    fn generate(&mut self, u: &mut Unstructured<'_>) -> Result<Values> {
        let flags: [bool; 22] = u.arbitrary()?;
        let credentials = list(u, credential_name)?;
        let (names, kinds) = credentials.into_iter().unzip();
        Ok(Values {
            actions: list(u, old_action)?,
            flags,
            info: old_info(u, &flags, names)?,
            kinds,
            recipe: old::InstallRecipe {
                binary_name: text(u)?,
                latest_version_url: option(u, url)?,
                sources: list(u, |u| {
                    Ok(old::InstallSource {
                        url: url(u)?,
                        archive: *u.choose(&[
                            OldArchiveKind::None,
                            OldArchiveKind::TarGz,
                            OldArchiveKind::Zip,
                        ])?,
                        binary_path: path(u)?,
                        sha256_url: option(u, url)?,
                    })
                })?,
                npm_package: option(u, text)?,
                npm_binary_path: option(u, path)?,
            },
            inputs: inputs(u)?,
        })
    }

    fn check(&mut self, values: &Values) {
        for action in &values.actions {
            let converted: NewAction = action.clone().into();
            assert_eq!(format!("{converted:?}"), format!("{action:?}"));
        }
        let converted = values.actions.iter().cloned().map(Into::into).collect();
        let _ = crate::convert::convert_actions("fuzz", converted);
        check_info(values);
        check_recipe(&values.recipe);
        check_inputs(&values.inputs);
    }

    fn describe(&self, values: &Values) -> String {
        format!("{values:#?}")
    }
}

/// The info converted: every field carried over, one capability per flag set, and
/// credential variables read as documented.
fn check_info(values: &Values) {
    let info = &values.info;
    let converted: new::AdapterInfo = info.clone().into();
    let same = |a: &dyn std::fmt::Debug, b: &dyn std::fmt::Debug| {
        assert_eq!(format!("{a:?}"), format!("{b:?}"))
    };
    same(&converted.id, &info.id);
    same(&converted.name, &info.name);
    same(&converted.version, &info.version);
    same(&converted.agent_versions, &info.agent_versions);
    same(&converted.modes, &info.modes);
    same(&converted.default_mode, &info.default_mode);
    same(&converted.models, &info.models);
    same(&converted.default_model, &info.default_model);
    assert_eq!(converted.builtin, info.builtin);
    let set = values.flags.iter().filter(|set| **set).count();
    assert_eq!(
        converted.capabilities.len(),
        set,
        "{:?}",
        converted.capabilities
    );
    let distinct: std::collections::BTreeSet<_> = converted.capabilities.iter().collect();
    assert_eq!(distinct.len(), set, "a capability named twice");
    assert_eq!(converted.credential_env.len(), info.credential_env.len());
    for ((variable, name), kind) in converted
        .credential_env
        .iter()
        .zip(&info.credential_env)
        .zip(&values.kinds)
    {
        assert_eq!(&variable.name, name);
        let first_word = name.split('_').next().unwrap_or_default();
        assert_eq!(variable.provider, first_word.to_lowercase(), "{name}");
        if let Some(kind) = kind {
            assert_eq!(variable.kind, *kind, "{name}");
        }
    }
    assert!(converted.location_env.is_empty());
}

/// An install recipe converted: every field carried over (`sha256-url` as `checksum-url`).
fn check_recipe(recipe: &old::InstallRecipe) {
    let converted: new::InstallRecipe = recipe.clone().into();
    assert_eq!(converted.binary_name, recipe.binary_name);
    assert_eq!(converted.latest_version_url, recipe.latest_version_url);
    assert_eq!(converted.npm_package, recipe.npm_package);
    assert_eq!(converted.npm_binary_path, recipe.npm_binary_path);
    assert_eq!(converted.sources.len(), recipe.sources.len());
    for (new, old) in converted.sources.iter().zip(&recipe.sources) {
        assert_eq!(new.url, old.url);
        assert_eq!(format!("{:?}", new.archive), format!("{:?}", old.archive));
        assert_eq!(new.binary_path, old.binary_path);
        assert_eq!(new.checksum_url, old.sha256_url);
    }
}

/// The host's values converted for a 0.1.0 component: every field it has carried over.
fn check_inputs(inputs: &Inputs) {
    let same = |new: &dyn std::fmt::Debug, old: &dyn std::fmt::Debug| {
        assert_eq!(format!("{new:?}"), format!("{old:?}"))
    };
    same(&inputs.platform, &old::Platform::from(inputs.platform));
    for part in &inputs.parts {
        same(part, &OldPart::from(part.clone()));
    }
    same(&inputs.reply, &OldReply::from(inputs.reply));
    same(&inputs.exit, &old_actions::ExitStatus::from(inputs.exit));
    same(
        &inputs.response,
        &old_actions::HttpResponse::from(inputs.response.clone()),
    );
    same(
        &inputs.event,
        &old_actions::SseEvent::from(inputs.event.clone()),
    );
    let config = &inputs.config;
    let old = old::SessionConfig::from(config.clone());
    assert_eq!(
        (
            &old.session_id,
            &old.agent_mode,
            &old.permission_mode,
            &old.model,
            &old.variant,
            &old.directory
        ),
        (
            &config.session_id,
            &config.agent_mode,
            &config.permission_mode,
            &config.model,
            &config.variant,
            &config.directory
        )
    );
    assert_eq!(old.agent_binary, config.agent_binary);
    assert_eq!(old.env, config.env);
    assert_eq!(
        old.resume_native_session_id,
        config.resume_native_session_id
    );
}

/// Any 0.1.0 action (0.1.0 has no scratch files).
fn old_action(u: &mut Unstructured<'_>) -> Result<OldAction> {
    let pairs = |u: &mut Unstructured<'_>| list(u, |u| Ok((text(u)?, text(u)?)));
    Ok(match u.int_in_range(0..=9)? {
        0..=2 => OldAction::Emit(emitted(u)?),
        3 => OldAction::SetNativeSessionId(id(u)?),
        4 => OldAction::Spawn(old_actions::SpawnRequest {
            process_id: id(u)?,
            argv: list(u, id)?,
            env: pairs(u)?,
            cwd: option(u, path)?,
            share_key: option(u, id)?,
        }),
        5 => OldAction::HttpRequest(old_actions::HttpRequest {
            request_id: id(u)?,
            method: text(u)?,
            url: url(u)?,
            headers: pairs(u)?,
            body: u.arbitrary()?,
            timeout_ms: u.arbitrary()?,
        }),
        6 => OldAction::OpenSse(old_actions::SseRequest {
            stream_id: id(u)?,
            url: url(u)?,
            headers: pairs(u)?,
        }),
        7 => OldAction::SetTimer(old_actions::TimerRequest {
            timer_id: id(u)?,
            delay_ms: u.arbitrary()?,
        }),
        8 => OldAction::WriteStdin(old_actions::StdinWrite {
            process_id: id(u)?,
            data: u.arbitrary()?,
        }),
        _ => match u.int_in_range(0..=3)? {
            0 => OldAction::CloseStdin(id(u)?),
            1 => OldAction::Kill(id(u)?),
            2 => OldAction::CloseSse(id(u)?),
            _ => OldAction::CancelTimer(id(u)?),
        },
    })
}

/// A credential variable's name and, when its shape says it, the kind it must get.
fn credential_name(u: &mut Unstructured<'_>) -> Result<(String, Option<new::CredentialKind>)> {
    use new::CredentialKind::*;
    const SHAPES: &[(&str, new::CredentialKind)] = &[
        ("_API_KEY", ApiKey),
        ("_KEY", ApiKey),
        ("_OAUTH_TOKEN", OauthToken),
        ("_CODE_OAUTH_TOKEN", OauthToken),
        ("_TOKEN", Token),
        ("_AUTH_TOKEN", Token),
        ("_BASE_URL", Setting),
        ("_KEY_FILE", Setting),
        ("", Setting),
    ];
    if u.ratio(1, 4)? {
        return Ok((text(u)?, None));
    }
    let provider: String = u.choose(&["ACME", "OPENAI", "X", "ÄÖ", "Z9"])?.to_string();
    let &(suffix, kind) = u.choose(SHAPES)?;
    Ok((format!("{provider}{suffix}"), Some(kind)))
}

fn old_info(
    u: &mut Unstructured<'_>,
    flags: &[bool; 22],
    credential_env: Vec<String>,
) -> Result<old::AdapterInfo> {
    let [plan_mode, permissions, questions, tool_calls, tool_results, text_messages, images, file_attachments, session_lifecycle, error_events, reasoning, status, command_execution, file_changes, mcp_tools, streaming_deltas, item_started, shared_process, resume, cancel, usage, variants] =
        *flags;
    Ok(old::AdapterInfo {
        id: id(u)?,
        name: text(u)?,
        version: text(u)?,
        agent_versions: text(u)?,
        capabilities: old::Capabilities {
            plan_mode,
            permissions,
            questions,
            tool_calls,
            tool_results,
            text_messages,
            images,
            file_attachments,
            session_lifecycle,
            error_events,
            reasoning,
            status,
            command_execution,
            file_changes,
            mcp_tools,
            streaming_deltas,
            item_started,
            shared_process,
            resume,
            cancel,
            usage,
            variants,
        },
        modes: list(u, |u| {
            Ok(old::AgentMode {
                id: id(u)?,
                name: text(u)?,
                description: text(u)?,
            })
        })?,
        default_mode: id(u)?,
        models: list(u, |u| {
            Ok(old::Model {
                id: id(u)?,
                name: option(u, text)?,
                variants: list(u, id)?,
                default_variant: option(u, id)?,
            })
        })?,
        default_model: option(u, id)?,
        credential_env,
        builtin: u.arbitrary()?,
    })
}

fn inputs(u: &mut Unstructured<'_>) -> Result<Inputs> {
    let attachment = |u: &mut Unstructured<'_>| -> Result<new::Attachment> {
        Ok(new::Attachment {
            path: path(u)?,
            mime: option(u, text)?,
            filename: option(u, text)?,
        })
    };
    Ok(Inputs {
        platform: new::Platform {
            os: *u.choose(&[NewOs::Linux, NewOs::Macos, NewOs::Windows])?,
            arch: *u.choose(&[NewArch::X8664, NewArch::Aarch64])?,
            libc: *u.choose(&[None, Some(NewLibc::Gnu), Some(NewLibc::Musl)])?,
        },
        parts: list(u, |u| {
            Ok(match u.int_in_range(0..=2)? {
                0 => NewPart::Text(text(u)?),
                1 => NewPart::Image(attachment(u)?),
                _ => NewPart::File(attachment(u)?),
            })
        })?,
        reply: *u.choose(&[NewReply::Once, NewReply::Always, NewReply::Reject])?,
        exit: new_actions::ExitStatus {
            code: u.arbitrary()?,
            signal: u.arbitrary()?,
        },
        response: new_actions::HttpResponse {
            request_id: id(u)?,
            status: u.arbitrary()?,
            headers: list(u, |u| Ok((text(u)?, text(u)?)))?,
            body: u.arbitrary()?,
        },
        event: new_actions::SseEvent {
            stream_id: id(u)?,
            event: text(u)?,
            data: text(u)?,
            id: option(u, id)?,
        },
        config: new::SessionConfig {
            session_id: id(u)?,
            agent_mode: id(u)?,
            permission_mode: id(u)?,
            model: option(u, id)?,
            variant: option(u, id)?,
            directory: path(u)?,
            agent_binary: option(u, path)?,
            env: list(u, |u| Ok((text(u)?, text(u)?)))?,
            resume_native_session_id: option(u, id)?,
            mcp_servers: Vec::new(),
            skills: Vec::new(),
            scratch_dir: path(u)?,
            model_endpoints: Vec::new(),
            policy: None,
        },
    })
}

/// A checksum document and what reading it must give.
#[derive(Debug)]
struct Document {
    url: String,
    body: String,
    file_name: String,
    /// The digest it must give (lowercase), or `None` for a refusal; unknown once mangled.
    expected: Option<Option<String>>,
}

/// The checksums target.
struct Checksums;

impl fuzz::Target for Checksums {
    type Input = Document;

    fn generate(&mut self, u: &mut Unstructured<'_>) -> Result<Document> {
        let mut document = if u.arbitrary()? {
            sums(u)?
        } else {
            manifest(u)?
        };
        if u.ratio(1, 4)? {
            document.body = mutate::text(u, &document.body, &[])?;
            document.expected = None;
        }
        if u.ratio(1, 8)? {
            document.url = mutate::text(u, &document.url, &[])?;
            document.expected = None;
        }
        Ok(document)
    }

    fn check(&mut self, document: &Document) {
        let read = parse_checksum(&document.url, &document.body, &document.file_name);
        if let Ok(digest) = &read {
            assert!(
                digest.len() == 64
                    && digest
                        .bytes()
                        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)),
                "{digest:?}"
            );
            let in_body = document.body.to_ascii_lowercase().contains(digest.as_str());
            let in_json = serde_json::from_str::<Value>(&document.body).is_ok();
            assert!(in_body || in_json, "{digest} is not in the document");
        }
        if let Some(expected) = &document.expected {
            assert_eq!(read.ok().as_ref(), expected.as_ref());
        }
    }

    fn describe(&self, document: &Document) -> String {
        format!("{document:#?}")
    }
}

/// A random SHA-256 digest in random letter case.
fn digest(u: &mut Unstructured<'_>) -> Result<String> {
    let bytes: [u8; 32] = u.arbitrary()?;
    let hex = crate::cache::hex(&bytes);
    Ok(if u.arbitrary()? {
        hex.to_ascii_uppercase()
    } else {
        hex
    })
}

/// `sha256sum` output (names with `*` or folders, bare digests, noise lines) and
/// the file asked for: its first line's digest, else the only digest, else refused.
fn sums(u: &mut Unstructured<'_>) -> Result<Document> {
    const NAMES: &[&str] = &["tool-linux.tar.gz", "tool-darwin.zip", "tool", "tool.exe"];
    const NOISE: &[&str] = &["", "# SHA-256", "sha256:", "see https://x/y", "1234 abcd"];
    let mut body = String::new();
    let (mut named, mut digests) = (Vec::new(), Vec::new());
    for _ in 0..u.int_in_range(0..=5)? {
        match u.int_in_range(0..=3)? {
            0 => body.push_str(u.choose(NOISE)?),
            1 => {
                let digest = digest(u)?;
                body.push_str(&digest);
                digests.push(digest);
            }
            _ => {
                let (digest, name) = (digest(u)?, *u.choose(NAMES)?);
                let star = if u.arbitrary()? { "*" } else { "" };
                let folder = if u.arbitrary()? { "dist/" } else { "" };
                body.push_str(&format!("{digest}  {star}{folder}{name}"));
                named.push((name, digest.clone()));
                digests.push(digest);
            }
        }
        body.push_str(if u.arbitrary()? { "\n" } else { "\r\n" });
    }
    let file_name = if u.ratio(3, 4)? {
        u.choose(NAMES)?
    } else {
        "other"
    };
    let expected = match named.iter().find(|(name, _)| *name == file_name) {
        Some((_, digest)) => Some(digest.to_ascii_lowercase()),
        None if digests.len() == 1 => Some(digests[0].to_ascii_lowercase()),
        None => None,
    };
    let fragment = *u.choose(&["", "#", "#sums", "#x/y"])?;
    Ok(Document {
        url: format!("https://example.com/v1/SHA256SUMS{fragment}"),
        body,
        file_name: file_name.to_owned(),
        expected: Some(expected),
    })
}

/// A JSON manifest with a digest at a path, addressed by a JSON pointer (keys with
/// `/`, `~`, empty or not ASCII), or a pointer that misses it or names no digest.
fn manifest(u: &mut Unstructured<'_>) -> Result<Document> {
    const KEYS: &[&str] = &["platforms", "linux-x64", "checksum", "a/b", "t~1x", "", "ü"];
    let keys: Vec<&str> = (0..u.int_in_range(1..=4)?)
        .map(|_| u.choose(KEYS).copied())
        .collect::<Result<_>>()?;
    let digest = digest(u)?;
    let (leaf, expected): (Value, Option<String>) = match u.int_in_range(0..=5)? {
        0 => (json!(42), None),
        1 => (Value::String(digest[1..].to_owned()), None),
        2 => (json!({ "sha256": digest }), None),
        _ => (json!(digest), Some(digest.to_ascii_lowercase())),
    };
    let mut document = leaf;
    for key in keys.iter().rev() {
        let mut object = serde_json::Map::new();
        object.insert("other".into(), json!(digest.to_ascii_lowercase()));
        object.insert((*key).to_owned(), document);
        document = Value::Object(object);
    }
    let mut pointer: String = keys
        .iter()
        .map(|key| format!("/{}", key.replace('~', "~0").replace('/', "~1")))
        .collect();
    let missing = u.ratio(1, 6)?;
    if missing {
        pointer.push_str("/missing");
    }
    Ok(Document {
        url: format!("https://example.com/manifest.json#{pointer}"),
        body: serde_json::to_string(&document).unwrap(),
        file_name: "tool".into(),
        expected: Some(expected.filter(|_| !missing)),
    })
}
