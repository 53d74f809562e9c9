//! One adapter session: a guest `session` resource in its own store.

use std::sync::Arc;

use wasmtime::component::ResourceAny;
use wasmtime::{Store, Trap};

use crate::adapter::LoadedAdapter;
use crate::bindings::AdapterComponent;
use crate::convert::convert_actions;
use crate::limits::{InstanceLimits, MemoryLimitHit};
use crate::registry::call_budget_ticks;
use crate::{Action, HostConfig, HostError, Input, SessionConfig};

/// A live guest instance holding one session resource.
struct Live {
    store: Store<InstanceLimits>,
    bindings: AdapterComponent,
    session: ResourceAny,
}

/// One daemon session's adapter state machine, isolated in its own instance.
///
/// Calls are synchronous and bounded by the host's time budget. After a fatal
/// error the session is poisoned: every later call returns [`HostError::Poisoned`].
pub struct AdapterSession {
    adapter: Arc<LoadedAdapter>,
    config: SessionConfig,
    live: Option<Live>,
    recycled: u64,
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
            recycled: 0,
        })
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

    /// How many times the instance was rebuilt from a snapshot to give memory back.
    pub fn recycled(&self) -> u64 {
        self.recycled
    }

    /// Feeds one input to the adapter and returns the checked actions it asked for.
    pub fn handle(&mut self, input: Input) -> Result<Vec<Action>, HostError> {
        let call = input.name();
        let result = self.call(call, |b, store, session| dispatch(b, store, session, input));
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

    /// The adapter's state as an opaque blob (see `restore_session`).
    pub fn snapshot(&mut self) -> Result<Vec<u8>, HostError> {
        self.call("snapshot", |b, store, session| {
            b.sandbox_agent_adapter_adapter()
                .session()
                .call_snapshot(store, session)
        })
    }

    fn call<R>(
        &mut self,
        call: &str,
        f: impl FnOnce(
            &AdapterComponent,
            &mut Store<InstanceLimits>,
            ResourceAny,
        ) -> wasmtime::Result<R>,
    ) -> Result<R, HostError> {
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
    let guest = bindings.sandbox_agent_adapter_adapter().session();
    let id = &adapter.info().id;
    let session = match state {
        None => call_guest(&mut store, id, "constructor", adapter.config(), |store| {
            guest.call_constructor(store, config)
        })?,
        Some(state) => call_guest(&mut store, id, "restore", adapter.config(), |store| {
            guest.call_restore(store, config, state)
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

type GuestActions = Result<Vec<crate::bindings::actions::Action>, String>;

fn dispatch(
    bindings: &AdapterComponent,
    store: &mut Store<InstanceLimits>,
    session: ResourceAny,
    input: Input,
) -> wasmtime::Result<GuestActions> {
    let guest = bindings.sandbox_agent_adapter_adapter().session();
    let ok = |actions: wasmtime::Result<Vec<_>>| actions.map(Ok);
    match input {
        Input::Start => ok(guest.call_start(store, session)),
        Input::SendMessage(parts) => ok(guest.call_send_message(store, session, &parts)),
        Input::ReplyPermission {
            permission_id,
            reply,
        } => guest.call_reply_permission(store, session, &permission_id, reply),
        Input::ReplyQuestion {
            question_id,
            answers,
        } => guest.call_reply_question(store, session, &question_id, &answers),
        Input::RejectQuestion { question_id } => {
            guest.call_reject_question(store, session, &question_id)
        }
        Input::CancelTurn => ok(guest.call_cancel_turn(store, session)),
        Input::Terminate => ok(guest.call_terminate(store, session)),
        Input::Stdout { process_id, line } => {
            ok(guest.call_on_stdout(store, session, &process_id, &line))
        }
        Input::Stderr { process_id, line } => {
            ok(guest.call_on_stderr(store, session, &process_id, &line))
        }
        Input::Exit { process_id, status } => {
            ok(guest.call_on_exit(store, session, &process_id, status))
        }
        Input::SpawnFailed {
            process_id,
            message,
        } => ok(guest.call_on_spawn_failed(store, session, &process_id, &message)),
        Input::HttpResponse(response) => ok(guest.call_on_http_response(store, session, &response)),
        Input::HttpError {
            request_id,
            message,
        } => ok(guest.call_on_http_error(store, session, &request_id, &message)),
        Input::SseEvent(event) => ok(guest.call_on_sse_event(store, session, &event)),
        Input::SseClosed { stream_id, error } => {
            ok(guest.call_on_sse_closed(store, session, &stream_id, error.as_deref()))
        }
        Input::Timer { timer_id } => ok(guest.call_on_timer(store, session, &timer_id)),
    }
}

/// Runs one guest call with a fresh time budget and classifies its failure.
pub(crate) fn call_guest<R>(
    store: &mut Store<InstanceLimits>,
    adapter: &str,
    call: &str,
    config: &HostConfig,
    f: impl FnOnce(&mut Store<InstanceLimits>) -> wasmtime::Result<R>,
) -> Result<R, HostError> {
    let _running = store.data().ticker.running();
    store.set_epoch_deadline(call_budget_ticks(config));
    f(store).map_err(|error| {
        let (adapter, call) = (adapter.to_owned(), call.to_owned());
        if error.downcast_ref::<MemoryLimitHit>().is_some() {
            HostError::MemoryLimit {
                adapter,
                call,
                limit_bytes: config.memory_limit_bytes,
            }
        } else if error.downcast_ref::<Trap>() == Some(&Trap::Interrupt) {
            HostError::Timeout {
                adapter,
                call,
                timeout_ms: config.call_timeout.as_millis(),
            }
        } else {
            HostError::Trap {
                adapter,
                call,
                reason: format!("{error:#}"),
            }
        }
    })
}
