//! From WebAssembly bytes to a linked component, and from a linked component to
//! the adapter's facts.

use std::sync::Arc;

use wasmtime::component::Component;
use wasmtime::{Engine, Store};

use crate::artifact::{self, AdapterFacts};
use crate::call::{call_budget_ticks, call_guest};
use crate::contract;
use crate::error::one_line;
use crate::guest::{Guest, GuestPre};
use crate::host::Host;
use crate::limits::InstanceData;
use crate::ticker::EpochTicker;
use crate::{
    AdapterInfo, AdapterOrigin, Arch, HostConfig, HostError, Libc, Os, Platform,
    SUPPORTED_CONTRACTS,
};

/// A compiled, linked component, ready to instantiate.
pub(crate) struct Compiled {
    pre: GuestPre,
    engine: Engine,
    config: Arc<HostConfig>,
    ticker: EpochTicker,
    /// The contract version the component exports.
    pub(crate) contract: String,
}

impl Compiled {
    /// Links a component compiled (or deserialized) for the host's engine.
    pub(crate) fn link(
        host: &Host,
        origin: &AdapterOrigin,
        component: &Component,
    ) -> Result<Self, HostError> {
        let engine = &host.engine;
        let incompatible = |reason: String| HostError::IncompatibleContract {
            origin: origin.to_string(),
            supported: SUPPORTED_CONTRACTS.join(", "),
            reason,
        };
        let contract = contract::exported_contract(engine, component)
            .filter(|found| contract::supported_version(found).is_some())
            .ok_or_else(|| incompatible(contract::incompatibility(engine, component, "")))?;
        let version = contract::supported_version(&contract).unwrap_or_default();
        let pre = GuestPre::link(engine, component, version).map_err(|e| {
            incompatible(contract::incompatibility(engine, component, &one_line(&e)))
        })?;
        Ok(Self {
            pre,
            engine: engine.clone(),
            config: host.config.clone(),
            ticker: host.ticker.clone(),
            contract,
        })
    }

    /// A fresh instance with its own store, memory cap and call budget.
    pub(crate) fn instantiate(
        &self,
        origin: &AdapterOrigin,
    ) -> Result<(Store<InstanceData>, Guest), HostError> {
        let mut store = Store::new(
            &self.engine,
            InstanceData::new(
                origin.to_string().into(),
                self.config.memory_limit_bytes,
                self.ticker.clone(),
            ),
        );
        store.limiter(|limits| limits);
        store.epoch_deadline_trap();
        store.set_epoch_deadline(call_budget_ticks(&self.config));
        let running = self.ticker.running();
        let bindings = self.pre.instantiate(&mut store);
        drop(running);
        let bindings = bindings.map_err(|e| HostError::Load {
            origin: origin.to_string(),
            reason: format!("{e:#}"),
        })?;
        Ok((store, bindings))
    }

    /// Runs one stateless export on a fresh instance.
    pub(crate) fn stateless<R>(
        &self,
        origin: &AdapterOrigin,
        call: &str,
        f: impl FnOnce(&Guest, &mut Store<InstanceData>) -> wasmtime::Result<R>,
    ) -> Result<R, HostError> {
        let (mut store, bindings) = self.instantiate(origin)?;
        call_guest(
            &mut store,
            &origin.to_string(),
            call,
            &self.config,
            |store| f(&bindings, store),
        )
    }

    /// Asks the component everything the host keeps about it without running it.
    pub(crate) fn describe(&self, origin: &AdapterOrigin) -> Result<AdapterFacts, HostError> {
        let info = self.stateless(origin, "info", |guest, store| guest.info(store))?;
        validate_info(origin, &info)?;
        let version_args = self.stateless(origin, "version-args", |guest, store| {
            guest.version_args(store)
        })?;
        let mut install_plans = Vec::new();
        for platform in daemon_platforms() {
            let plan = self.stateless(origin, "install-plan", |guest, store| {
                guest.install_plan(store, platform, None)
            })?;
            install_plans.push((platform, plan));
        }
        let model_apis =
            self.stateless(origin, "model-apis", |guest, store| guest.model_apis(store))?;
        let asks_for = self.stateless(origin, "asks-for", |guest, store| guest.asks_for(store))?;
        Ok(AdapterFacts {
            info,
            contract: self.contract.clone(),
            version_args,
            install_plans,
            model_apis,
            asks_for,
        })
    }
}

/// Compiles WebAssembly bytes for `engine`, after checking they are a component.
pub(crate) fn compile_wasm(
    engine: &Engine,
    origin: &AdapterOrigin,
    bytes: &[u8],
) -> Result<Component, HostError> {
    contract::check_format(bytes).map_err(|reason| HostError::Load {
        origin: origin.to_string(),
        reason: reason.to_string(),
    })?;
    Component::new(engine, bytes).map_err(|e| load_error(origin, &e))
}

/// Every platform a daemon can run on, for the install plans kept in the facts.
pub(crate) fn daemon_platforms() -> Vec<Platform> {
    let linux = [Some(Libc::Gnu), Some(Libc::Musl)]
        .into_iter()
        .map(|libc| (Os::Linux, libc));
    let others = [(Os::Macos, None), (Os::Windows, None)];
    linux
        .chain(others)
        .flat_map(|(os, libc)| [Arch::X8664, Arch::Aarch64].map(|arch| Platform { os, arch, libc }))
        .collect()
}

fn load_error(origin: &AdapterOrigin, error: &wasmtime::Error) -> HostError {
    HostError::Load {
        origin: origin.to_string(),
        reason: one_line(error),
    }
}

fn validate_info(origin: &AdapterOrigin, info: &AdapterInfo) -> Result<(), HostError> {
    let valid_id = !info.id.is_empty()
        && info.id.len() <= 64
        && info
            .id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_');
    if !valid_id {
        return Err(HostError::InvalidInfo {
            origin: origin.to_string(),
            reason: format!(
                "agent id {:?} must be 1-64 characters of [a-z0-9_-]",
                info.id
            ),
        });
    }
    if !info.modes.iter().any(|mode| mode.id == info.default_mode) {
        return Err(HostError::InvalidInfo {
            origin: origin.to_string(),
            reason: format!(
                "default mode {:?} is not among its modes",
                info.default_mode
            ),
        });
    }
    Ok(())
}

impl Host {
    /// Compiles a component on this machine (or takes it from the cache) and links
    /// it; returns it with its facts (`known` ones, or asked of the component).
    pub(crate) fn compile(
        &self,
        origin: &AdapterOrigin,
        wasm: &[u8],
        known: Option<&AdapterFacts>,
    ) -> Result<(Compiled, AdapterFacts), HostError> {
        let source = artifact::sha256(wasm);
        if let Some(entry) = self
            .cache
            .as_ref()
            .and_then(|cache| cache.load(&source, self.compatibility))
        {
            // SAFETY: the entry's checksums matched, it names this component and an
            // engine of this build and machine, and wasmtime checks its header,
            // target and settings again before using it.
            match unsafe { Component::deserialize(&self.engine, &entry.code) } {
                Ok(component) => {
                    let compiled = Compiled::link(self, origin, &component)?;
                    return Ok((compiled, entry.facts));
                }
                Err(error) => {
                    tracing::warn!(%origin, "compile cache entry refused ({}); compiling again", one_line(&error))
                }
            }
        }
        let component = compile_wasm(&self.engine, origin, wasm)?;
        let compiled = Compiled::link(self, origin, &component)?;
        let facts = match known {
            Some(facts) => facts.clone(),
            None => compiled.describe(origin)?,
        };
        if let Some(cache) = &self.cache {
            match component.serialize() {
                Ok(code) => cache.store(
                    &source,
                    &artifact::encode(&facts, self.compatibility, wasm, &code, false),
                ),
                Err(error) => {
                    tracing::warn!(%origin, "cannot cache the compiled component: {}", one_line(&error))
                }
            }
        }
        Ok((compiled, facts))
    }
}
