//! One adapter session: a guest `session` resource in its own store.

use std::sync::Arc;

use wasmtime::component::ResourceAny;
use wasmtime::Store;

use crate::adapter::LoadedAdapter;
use crate::call::call_guest;
use crate::convert::convert_actions;
use crate::guest::Guest;
use crate::limits::InstanceData;
use crate::{
    Action, HostError, Input, NativeDecision, SessionConfig, ToolRequest, OFFER_CAPABILITY,
};
use agentplex_universal::AgentOffer;

/// A live guest instance holding one session resource.
struct Live {
    store: Store<InstanceData>,
    bindings: Guest,
    session: ResourceAny,
}

/// One daemon session's adapter state machine, isolated in its own instance.
///
/// Calls are synchronous and bounded by the host's time budget. After a fatal
/// error the session is poisoned: every later call returns [`HostError::Poisoned`].
///
/// A session at rest can be [parked](Self::park): its instance is dropped and
/// only its snapshot kept, and the next call rebuilds the instance from it.
pub struct AdapterSession {
    adapter: Arc<LoadedAdapter>,
    config: SessionConfig,
    live: Option<Live>,
    /// The snapshot of a parked session, in place of `live`.
    parked: Option<Vec<u8>>,
    recycled: u64,
    /// Calls the agent decided by its native rules, not yet taken.
    native: Vec<NativeDecision>,
    /// What the agent offered, not yet taken (capability `agent-offer`).
    offer: Option<AgentOffer>,
}

impl AdapterSession {
    pub(crate) fn create(
        adapter: Arc<LoadedAdapter>,
        config: SessionConfig,
        state: Option<&[u8]>,
    ) -> Result<Self, HostError> {
        let live = instantiate_session(&adapter, &config, state)?;
        Ok(Self {
            adapter,
            config,
            live: Some(live),
            parked: None,
            recycled: 0,
            native: Vec::new(),
            offer: None,
        })
    }

    /// What the adapter was told about the session.
    pub fn config(&self) -> &SessionConfig {
        &self.config
    }

    /// The adapter this session runs on.
    pub fn adapter(&self) -> &Arc<LoadedAdapter> {
        &self.adapter
    }

    /// Linear memory of the current instance, in bytes.
    pub fn memory_size(&self) -> usize {
        self.live
            .as_ref()
            .map_or(0, |live| live.store.data().memory_size)
    }

    /// Drops the instance and keeps only the adapter's snapshot (a few hundred
    /// bytes for most adapters, against tens of KiB for an instance): for a
    /// session at rest. The next call rebuilds the instance from the snapshot.
    pub fn park(&mut self) -> Result<(), HostError> {
        if self.live.is_some() {
            let state = self.snapshot()?;
            self.live = None;
            self.parked = Some(state);
        }
        Ok(())
    }

    /// Runs the session with these modes (and `model` and its `variant`, when
    /// given) from now on: the instance is parked, and rebuilt from its
    /// snapshot with them in its configuration at the next call. Only for
    /// adapters that declare the `mode-change` capability, `model-change` for a
    /// model or `variant-change` for a variant (they apply a configuration's
    /// changed modes, model or variant from the next message on).
    pub fn set_modes(
        &mut self,
        agent_mode: &str,
        permission_mode: &str,
        model: Option<&str>,
        variant: Option<&str>,
    ) -> Result<(), HostError> {
        self.park()?;
        self.config.agent_mode = agent_mode.to_owned();
        self.config.permission_mode = permission_mode.to_owned();
        if let Some(model) = model {
            self.config.model = Some(model.to_owned());
        }
        if let Some(variant) = variant {
            self.config.variant = Some(variant.to_owned());
        }
        Ok(())
    }

    /// Whether the session is parked (no instance until its next call).
    pub fn is_parked(&self) -> bool {
        self.parked.is_some()
    }

    /// How many times the instance was rebuilt from a snapshot to give memory back.
    pub fn recycled(&self) -> u64 {
        self.recycled
    }

    /// Feeds one input to the adapter and returns the checked actions it asked for.
    /// A replaced approval policy ([`Input::SetPolicy`]) is also what the
    /// adapter is told when its instance is rebuilt from a snapshot. With a
    /// policy, the calls the agent decided by its native rules are collected
    /// after every input ([`Self::take_native_decisions`]), and what the agent
    /// offers for adapters that report it ([`Self::take_agent_offer`]).
    pub fn handle(&mut self, input: Input) -> Result<Vec<Action>, HostError> {
        let call = input.name();
        if let Input::SetPolicy(document) = &input {
            self.config.policy = document.as_ref().map(crate::approval_policy);
        }
        let result = self.call(call, |guest, store, session| {
            guest.handle(store, session, input)
        });
        if self.config.policy.is_some() && matches!(result, Ok(Ok(_))) {
            let decided = self.call("native-decisions", |guest, store, session| {
                guest.native_decisions(store, session)
            })?;
            self.native.extend(decided);
        }
        if matches!(result, Ok(Ok(_))) && self.adapter.info().has(OFFER_CAPABILITY) {
            let offer = self.call("agent-offer", |guest, store, session| {
                guest.agent_offer(store, session)
            })?;
            if let Some(offer) = offer {
                self.offer = Some(crate::offer::agent_offer(offer));
            }
        }
        let actions = match result {
            Ok(Ok(actions)) => actions,
            Ok(Err(rejection)) => return Err(HostError::Rejected(rejection)),
            Err(error) => return Err(error),
        };
        let actions =
            convert_actions(&self.adapter.info().id, actions).inspect_err(|_| self.live = None)?;
        self.recycle_if_grown()?;
        Ok(actions)
    }

    /// The calls the agent decided by the native rules its adapter handed it
    /// (see [`Self::handle`]), oldest first, since the last time they were taken.
    pub fn take_native_decisions(&mut self) -> Vec<NativeDecision> {
        std::mem::take(&mut self.native)
    }

    /// What the agent offered its session to choose from, when it said
    /// something new since the last time this was taken (adapters declaring
    /// [`OFFER_CAPABILITY`] are asked after every input, see [`Self::handle`]).
    pub fn take_agent_offer(&mut self) -> Option<AgentOffer> {
        self.offer.take()
    }

    /// What the pending permission request `permission_id` asks for, for the
    /// session's approval policy; `None` when the adapter cannot tell (and for
    /// components of contracts before 0.5.0).
    pub fn describe_permission(
        &mut self,
        permission_id: &str,
    ) -> Result<Option<ToolRequest>, HostError> {
        self.call("describe-permission", |guest, store, session| {
            guest.describe_permission(store, session, permission_id)
        })
    }

    /// The adapter's state as an opaque blob (see `restore_session`). A parked
    /// session answers with the snapshot it was parked with, without an instance.
    pub fn snapshot(&mut self) -> Result<Vec<u8>, HostError> {
        if let Some(state) = &self.parked {
            return Ok(state.clone());
        }
        self.call("snapshot", |guest, store, session| {
            guest.snapshot(store, session)
        })
    }

    fn call<R>(
        &mut self,
        call: &str,
        f: impl FnOnce(&Guest, &mut Store<InstanceData>, ResourceAny) -> wasmtime::Result<R>,
    ) -> Result<R, HostError> {
        if let Some(state) = self.parked.take() {
            self.live = Some(instantiate_session(
                &self.adapter,
                &self.config,
                Some(&state),
            )?);
        }
        let live = self.live.as_mut().ok_or(HostError::Poisoned)?;
        let session = live.session;
        let bindings = &live.bindings;
        let result = call_guest(
            &mut live.store,
            &self.adapter.info().id,
            call,
            self.adapter.config(),
            |store| f(bindings, store, session),
        );
        if result.is_err() {
            self.live = None;
        }
        result
    }

    /// Wasm memory never shrinks: past the threshold, move the state to a fresh instance.
    fn recycle_if_grown(&mut self) -> Result<(), HostError> {
        if self.memory_size() <= self.adapter.config().recycle_threshold_bytes {
            return Ok(());
        }
        let state = self.snapshot()?;
        let before = self.memory_size();
        let live = instantiate_session(&self.adapter, &self.config, Some(&state))
            .inspect_err(|_| self.live = None)?;
        self.live = Some(live);
        self.recycled += 1;
        tracing::debug!(
            agent = self.adapter.id(),
            before,
            after = self.memory_size(),
            "recycled adapter instance"
        );
        Ok(())
    }
}

fn instantiate_session(
    adapter: &LoadedAdapter,
    config: &SessionConfig,
    state: Option<&[u8]>,
) -> Result<Live, HostError> {
    let (mut store, bindings) = adapter.instantiate()?;
    let id = &adapter.info().id;
    let session = match state {
        None => call_guest(&mut store, id, "constructor", adapter.config(), |store| {
            bindings.new_session(store, config)
        })?,
        Some(state) => call_guest(&mut store, id, "restore", adapter.config(), |store| {
            bindings.restore_session(store, config, state)
        })?
        .map_err(|reason| HostError::Trap {
            adapter: id.clone(),
            call: "restore".into(),
            reason,
        })?,
    };
    Ok(Live {
        store,
        bindings,
        session,
    })
}

impl LoadedAdapter {
    /// Starts a new adapter session (call [`AdapterSession::handle`] with `Input::Start` next).
    pub fn new_session(
        self: &Arc<Self>,
        config: SessionConfig,
    ) -> Result<AdapterSession, HostError> {
        AdapterSession::create(self.clone(), config, None)
    }

    /// Rebuilds an adapter session from a snapshot taken earlier.
    pub fn restore_session(
        self: &Arc<Self>,
        config: SessionConfig,
        state: &[u8],
    ) -> Result<AdapterSession, HostError> {
        AdapterSession::create(self.clone(), config, Some(state))
    }
}
