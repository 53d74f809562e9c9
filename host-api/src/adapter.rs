//! One adapter known to the host: its facts at once, its compiled component only
//! when an instance is first needed.

use std::fmt;
use std::sync::{Arc, OnceLock};

use wasmtime::component::Component;
use wasmtime::Store;

use crate::artifact::{self, AdapterFacts, Stored};
use crate::compile::Compiled;
use crate::error::one_line;
use crate::guest::Guest;
use crate::host::Host;
use crate::limits::InstanceData;
use crate::{
    AdapterInfo, AdapterOrigin, AgentDefinition, CredentialRead, HostConfig, HostError, Landing,
    NativeSource, Place, Platform,
};

/// Machine code compiled when the daemon was built, and the WebAssembly it came
/// from (compressed) for when that code does not fit the running engine.
pub(crate) struct Embedded {
    pub(crate) code: Stored<'static>,
    /// The base builtin's code, for code stored as a delta of it.
    pub(crate) base_code: Option<Stored<'static>>,
    pub(crate) wasm: EmbeddedWasm,
}

/// A builtin's WebAssembly as embedded: zstd-compressed, maybe against the base
/// builtin's WebAssembly (itself zstd-compressed).
#[derive(Debug, Clone, Copy)]
pub(crate) struct EmbeddedWasm {
    pub(crate) compressed: &'static [u8],
    pub(crate) base: Option<&'static [u8]>,
}

impl EmbeddedWasm {
    /// The component's bytes.
    pub(crate) fn decompress(&self, origin: &AdapterOrigin) -> Result<Vec<u8>, HostError> {
        let decoded = match self.base {
            None => artifact::decompress(self.compressed),
            Some(base) => artifact::decompress(base)
                .and_then(|base| artifact::decompress_against(self.compressed, &base)),
        };
        decoded.map_err(|e| HostError::Load {
            origin: origin.to_string(),
            reason: e.to_string(),
        })
    }
}

/// An adapter component and the facts it reported.
pub struct LoadedAdapter {
    facts: AdapterFacts,
    origin: AdapterOrigin,
    host: Arc<Host>,
    /// Set on the first instance (or at once for components compiled on load),
    /// failure included: a component that does not load is not tried again.
    compiled: OnceLock<Result<Compiled, HostError>>,
    embedded: Option<Embedded>,
    /// For an agent defined on top of another adapter
    /// ([`crate::AdapterRegistry::define`]): that adapter, whose component runs
    /// its sessions.
    base: Option<Arc<LoadedAdapter>>,
}

impl fmt::Debug for LoadedAdapter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LoadedAdapter")
            .field("id", &self.facts.info.id)
            .field("version", &self.facts.info.version)
            .field("origin", &self.origin)
            .finish()
    }
}

impl LoadedAdapter {
    /// An adapter whose component is already compiled and linked.
    pub(crate) fn compiled(
        host: Arc<Host>,
        origin: AdapterOrigin,
        facts: AdapterFacts,
        compiled: Compiled,
    ) -> Self {
        Self {
            facts,
            origin,
            host,
            compiled: OnceLock::from(Ok(compiled)),
            embedded: None,
            base: None,
        }
    }

    /// An adapter known by its facts, compiled from `embedded` when first needed.
    pub(crate) fn lazy(
        host: Arc<Host>,
        origin: AdapterOrigin,
        facts: AdapterFacts,
        embedded: Embedded,
    ) -> Self {
        Self {
            facts,
            origin,
            host,
            compiled: OnceLock::new(),
            embedded: Some(embedded),
            base: None,
        }
    }

    /// Another agent run by `base`'s component: `definition`'s id, name and
    /// credential variables over `base`'s facts, with no install plan of the component's
    /// (the agent is installed from what defined it).
    pub(crate) fn defined(base: Arc<LoadedAdapter>, definition: &AgentDefinition) -> Self {
        let mut facts = base.facts.clone();
        facts.info.id = definition.id.clone();
        facts.info.name = definition.name.clone();
        facts.info.credential_env = definition.credential_env.clone();
        for (_, plan) in &mut facts.install_plans {
            *plan = None;
        }
        facts.version_args = None;
        Self {
            facts,
            origin: base.origin.clone(),
            host: base.host.clone(),
            compiled: OnceLock::new(),
            embedded: None,
            base: Some(base),
        }
    }

    /// The adapter whose component runs this agent's sessions, when it was defined
    /// on top of one.
    pub fn base(&self) -> Option<&LoadedAdapter> {
        self.base.as_deref()
    }

    /// The adapter's agent id.
    pub fn id(&self) -> &str {
        &self.facts.info.id
    }

    /// Everything `info()` reported.
    pub fn info(&self) -> &AdapterInfo {
        &self.facts.info
    }

    /// What the host knows of the adapter without running it.
    pub fn facts(&self) -> &AdapterFacts {
        &self.facts
    }

    /// Where the component was loaded from.
    pub fn origin(&self) -> &AdapterOrigin {
        &self.origin
    }

    /// The contract version the component was built against, as it exports it
    /// (`sandbox-agent:adapter@0.1.0`). A semver-compatible later patch
    /// (`@0.1.1`) is run as the supported version it is compatible with.
    pub fn contract(&self) -> &str {
        &self.facts.contract
    }

    /// Whether the component has been compiled or loaded into the engine yet
    /// (builtin adapters are, only once a session needs them).
    pub fn is_compiled(&self) -> bool {
        match &self.base {
            Some(base) => base.is_compiled(),
            None => self.compiled.get().is_some(),
        }
    }

    pub(crate) fn config(&self) -> &HostConfig {
        &self.host.config
    }

    /// The linked component, loading it on first use.
    fn ready(&self) -> Result<&Compiled, HostError> {
        if let Some(base) = &self.base {
            return base.ready();
        }
        self.compiled
            .get_or_init(|| self.load())
            .as_ref()
            .map_err(|error| HostError::Load {
                origin: self.origin.to_string(),
                reason: error.to_string(),
            })
    }

    /// Loads the embedded precompiled code, or compiles the WebAssembly when that
    /// code does not fit this engine (other limits, another CPU).
    fn load(&self) -> Result<Compiled, HostError> {
        let Some(embedded) = &self.embedded else {
            return Err(HostError::Load {
                origin: self.origin.to_string(),
                reason: "no component to load".into(),
            });
        };
        let deserialized = embedded
            .code
            .decode_with(embedded.base_code.as_ref())
            .map_err(|e| e.to_string())
            .and_then(|code| {
                // SAFETY: the code was produced by `Engine::precompile_component` of
                // this very build (it is embedded in the binary next to the host that
                // reads it), its checksum matched, and wasmtime checks its header,
                // target and settings before using it.
                unsafe { Component::deserialize(&self.host.engine, &code) }
                    .map_err(|e| one_line(&e))
            });
        match deserialized {
            Ok(component) => Compiled::link(&self.host, &self.origin, &component),
            Err(why) => {
                tracing::info!(
                    origin = %self.origin,
                    "precompiled adapter does not fit this engine ({why}); compiling it"
                );
                let wasm = embedded.wasm.decompress(&self.origin)?;
                self.host
                    .compile(&self.origin, &wasm, Some(&self.facts))
                    .map(|(compiled, _)| compiled)
            }
        }
    }

    pub(crate) fn instantiate(&self) -> Result<(Store<InstanceData>, Guest), HostError> {
        // Compiled once and shared: not the instance's (see `instance_memory`).
        let compiled = self.ready()?;
        crate::instance_memory::building(|| compiled.instantiate(&self.origin))
    }

    fn stateless<R>(
        &self,
        call: &str,
        f: impl FnOnce(&Guest, &mut Store<InstanceData>) -> wasmtime::Result<R>,
    ) -> Result<R, HostError> {
        self.ready()?.stateless(&self.origin, call, f)
    }

    /// How to install the agent on `platform` (none when not installable). The
    /// latest version's plan is known without running the adapter.
    pub fn install_plan(
        &self,
        platform: Platform,
        version: Option<&str>,
    ) -> Result<Option<crate::InstallRecipe>, HostError> {
        if version.is_none() {
            if let Some((_, plan)) = self
                .facts
                .install_plans
                .iter()
                .find(|(known, _)| *known == platform)
            {
                return Ok(plan.clone());
            }
        }
        self.stateless("install-plan", |guest, store| {
            guest.install_plan(store, platform, version)
        })
    }

    /// The latest version named in the body of the plan's `latest-version-url`.
    pub fn parse_latest_version(&self, body: &str) -> Result<Option<String>, HostError> {
        self.stateless("parse-latest-version", |guest, store| {
            guest.parse_latest_version(store, body)
        })
    }

    /// The arguments that make the agent print its version.
    pub fn version_args(&self) -> Option<Vec<String>> {
        self.facts.version_args.clone()
    }

    /// The version in what the agent printed for `version_args`.
    pub fn parse_version(&self, output: &str) -> Result<Option<String>, HostError> {
        self.stateless("parse-version", |guest, store| {
            guest.parse_version(store, output)
        })
    }

    /// The SHA-256 of `file_name` in the checksum document fetched from `url` (an
    /// install source's `checksum-url`), or why the document names none.
    pub fn parse_checksum(
        &self,
        url: &str,
        body: &str,
        file_name: &str,
    ) -> Result<Result<String, String>, HostError> {
        self.stateless("parse-checksum", |guest, store| {
            guest.parse_checksum(store, url, body, file_name)
        })
    }

    /// The files the agent keeps credentials in, given the home folder and the
    /// set variables of the adapter's `location-env`.
    pub fn credential_files(
        &self,
        home: Option<&str>,
        env: &[(String, String)],
    ) -> Result<Vec<String>, HostError> {
        self.stateless("credential-files", |guest, store| {
            guest.credential_files(store, home, env)
        })
    }

    /// The credentials in the text of one of [`Self::credential_files`].
    pub fn parse_credentials(&self, path: &str, text: &str) -> Result<CredentialRead, HostError> {
        self.stateless("parse-credentials", |guest, store| {
            guest.parse_credentials(store, path, text)
        })
    }

    /// The files holding the agent's own session `native_id` when it runs at
    /// `at`, or why that session cannot move.
    pub fn native_session_files(
        &self,
        native_id: &str,
        at: &Place,
    ) -> Result<Result<Vec<NativeSource>, String>, HostError> {
        self.stateless("native-session-files", |guest, store| {
            guest.native_session_files(store, native_id, at)
        })
    }

    /// Where the native session file `path` (named by
    /// [`Self::native_session_files`] at `from`) goes at `to`, and what it then
    /// holds (or the command that takes it in); an error refuses the move.
    pub fn move_native_file(
        &self,
        path: &str,
        contents: &[u8],
        from: &Place,
        to: &Place,
    ) -> Result<Result<Landing, String>, HostError> {
        self.stateless("move-native-file", |guest, store| {
            guest.move_native_file(store, path, contents, from, to)
        })
    }
}
