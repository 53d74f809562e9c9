//! What a component file is, and which version of the contract it was built against:
//! the plain-words diagnosis behind [`HostError::Load`] and
//! [`HostError::IncompatibleContract`].
//!
//! [`HostError::Load`]: crate::HostError::Load
//! [`HostError::IncompatibleContract`]: crate::HostError::IncompatibleContract

use std::cmp::Ordering;

use wasmtime::component::Component;
use wasmtime::Engine;

use crate::SUPPORTED_CONTRACTS;

/// The contract's package name; its interfaces are exported as `PACKAGE/NAME@VERSION`.
const PACKAGE: &str = "sandbox-agent:adapter";

/// What bytes that are not a WebAssembly component are instead; the reason of a
/// [`HostError::Load`](crate::HostError::Load).
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum FormatError {
    /// The bytes do not start with the WebAssembly header.
    #[error("not a WebAssembly file (it does not start with the \\0asm header)")]
    NotWasm,
    /// A core module: built for another target, or not wrapped as a component.
    #[error(
        "a core WebAssembly module, not a component: build the adapter for \
         wasm32-wasip2 (cargo build --target wasm32-wasip2), or wrap the module with \
         `wasm-tools component new`"
    )]
    CoreModule,
}

/// Refuses bytes that are not a WebAssembly component, saying what they are instead.
pub(crate) fn check_format(bytes: &[u8]) -> Result<(), FormatError> {
    const MAGIC: &[u8] = b"\0asm";
    // After the magic: a 2-byte version and a 2-byte layer (0 = core module, 1 = component).
    let Some(header) = bytes.get(..8).filter(|header| header.starts_with(MAGIC)) else {
        return Err(FormatError::NotWasm);
    };
    if header[6..8] == [0, 0] {
        return Err(FormatError::CoreModule);
    }
    Ok(())
}

/// The contract version (`sandbox-agent:adapter@0.1.0`) whose `adapter` interface the
/// component exports, when it exports one.
pub(crate) fn exported_contract(engine: &Engine, component: &Component) -> Option<String> {
    let prefix = format!("{PACKAGE}/adapter@");
    component
        .component_type()
        .exports(engine)
        .find_map(|(name, _)| {
            name.strip_prefix(&prefix)
                .map(|version| format!("{PACKAGE}@{version}"))
        })
}

/// The supported contract version (`0.5.0`) that `contract`
/// (`sandbox-agent:adapter@0.4.1`) is compatible with, by semver: the same
/// `0.minor` (or major), any patch.
pub(crate) fn supported_version(contract: &str) -> Option<&'static str> {
    let [major, minor, _] = version_of(contract)?;
    SUPPORTED_CONTRACTS.iter().find_map(|supported| {
        let [s_major, s_minor, _] = version_of(supported)?;
        let compatible = major == s_major && (major > 0 || minor == s_minor);
        compatible.then(|| supported.rsplit_once('@').map_or("", |(_, v)| v))
    })
}

/// Why a component that could not be linked as a supported contract is incompatible,
/// in plain words: built against a newer or an older contract, a matching version whose
/// functions or types differ, or no adapter interface at all.
pub(crate) fn incompatibility(engine: &Engine, component: &Component, link_error: &str) -> String {
    let exports: Vec<String> = component
        .component_type()
        .exports(engine)
        .map(|(name, _)| name.to_owned())
        .collect();
    let Some(found) = exported_contract(engine, component) else {
        return format!(
            "it does not export the {PACKAGE}/adapter interface (it exports [{}]); an adapter \
             targets the world adapter-component of the contract",
            exports.join(", ")
        );
    };
    match compare_with_supported(&found) {
        Some(Ordering::Greater) => format!(
            "it was built against {found}, a newer contract than this daemon supports: \
             upgrade agentplex, or build the adapter against a supported version"
        ),
        Some(Ordering::Less) => format!(
            "it was built against {found}, an older contract than this daemon supports: \
             rebuild the adapter against a supported version"
        ),
        _ => format!(
            "it exports {found}, but its functions or types do not match that contract \
             ({link_error})"
        ),
    }
}

/// How `contract`'s version compares with every supported version: greater than all,
/// less than all, or `None` (between them, or not a version).
fn compare_with_supported(contract: &str) -> Option<Ordering> {
    let version = version_of(contract)?;
    let supported: Vec<[u64; 3]> = SUPPORTED_CONTRACTS
        .iter()
        .filter_map(|c| version_of(c))
        .collect();
    if supported.iter().all(|s| version > *s) {
        Some(Ordering::Greater)
    } else if supported.iter().all(|s| version < *s) {
        Some(Ordering::Less)
    } else {
        None
    }
}

/// `major.minor.patch` of `package@1.2.3[-pre][+build]`.
fn version_of(contract: &str) -> Option<[u64; 3]> {
    let (_, version) = contract.rsplit_once('@')?;
    let core = version.split(['-', '+']).next()?;
    let mut parts = core.split('.').map(|part| part.parse::<u64>().ok());
    let version = [parts.next()??, parts.next()??, parts.next()??];
    parts.next().is_none().then_some(version)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_compare_with_the_supported_ones() {
        assert_eq!(
            compare_with_supported("sandbox-agent:adapter@1.0.0"),
            Some(Ordering::Greater)
        );
        assert_eq!(
            compare_with_supported("sandbox-agent:adapter@0.0.9"),
            Some(Ordering::Less)
        );
        assert_eq!(compare_with_supported("sandbox-agent:adapter@0.1.0"), None);
        assert_eq!(
            compare_with_supported("sandbox-agent:adapter@0.6.0"),
            Some(Ordering::Greater)
        );
        assert_eq!(
            supported_version("sandbox-agent:adapter@0.1.3"),
            Some("0.1.0")
        );
        assert_eq!(
            supported_version("sandbox-agent:adapter@0.2.0"),
            Some("0.2.0")
        );
        assert_eq!(
            supported_version("sandbox-agent:adapter@0.3.1"),
            Some("0.3.0")
        );
        assert_eq!(
            supported_version("sandbox-agent:adapter@0.4.2"),
            Some("0.4.0")
        );
        assert_eq!(
            supported_version("sandbox-agent:adapter@0.5.0"),
            Some("0.5.0")
        );
        assert_eq!(supported_version("sandbox-agent:adapter@0.6.0"), None);
        assert_eq!(compare_with_supported("sandbox-agent:adapter@x"), None);
        assert_eq!(version_of("p@1.2.3-rc.1"), Some([1, 2, 3]));
        assert_eq!(version_of("p@1.2"), None);
    }

    #[test]
    fn the_format_check_names_what_the_bytes_are() {
        assert_eq!(check_format(b"hello"), Err(FormatError::NotWasm));
        assert!(FormatError::NotWasm
            .to_string()
            .contains("not a WebAssembly file"));
        let module = b"\0asm\x01\x00\x00\x00";
        assert_eq!(check_format(module), Err(FormatError::CoreModule));
        assert!(FormatError::CoreModule
            .to_string()
            .contains("core WebAssembly module"));
        assert!(check_format(b"\0asm\x0d\x00\x01\x00").is_ok());
    }
}
