//! A linked adapter component of any supported contract, called with the 0.2.0
//! contract's values: the one place that knows which contract a component speaks.

use wasmtime::component::{Component, InstancePre, Linker, ResourceAny};
use wasmtime::{Engine, Store};

use crate::bindings::{actions, guest as api, v0_1, v0_2};
use crate::limits::InstanceData;
use crate::Input;

use actions::{ExitStatus as WitExit, HttpResponse as WitResponse, SseEvent as WitSseEvent};
use api::{MessagePart as WitPart, PermissionReply as WitReply};

type Data = InstanceData;

/// A component linked against its contract, ready to instantiate.
pub(crate) enum GuestPre {
    V0_1(v0_1::AdapterComponentPre<Data>),
    V0_2(v0_2::AdapterComponentPre<Data>),
}

/// One instance of an adapter component.
pub(crate) enum Guest {
    V0_1(v0_1::AdapterComponent),
    V0_2(v0_2::AdapterComponent),
}

/// What a session call returns: actions, or the adapter's refusal of a reply.
pub(crate) type GuestActions = Result<Vec<actions::Action>, String>;

impl GuestPre {
    /// Links `component` as the contract `version` it exports (`0.1.0`, `0.2.0`):
    /// the host's imports are defined, every other import (WASI) traps.
    pub(crate) fn link(
        engine: &Engine,
        component: &Component,
        version: &str,
    ) -> wasmtime::Result<Self> {
        let mut linker = Linker::<Data>::new(engine);
        let v0_1 = version.starts_with("0.1.");
        if !v0_1 {
            v0_2::host::add_to_linker::<_, wasmtime::component::HasSelf<Data>>(
                &mut linker,
                |data| data,
            )?;
        }
        // Guests built for wasm32-wasip2 import WASI even when they never use it;
        // those imports are satisfied with functions that trap: nothing is granted.
        linker.define_unknown_imports_as_traps(component)?;
        let pre: InstancePre<Data> = linker.instantiate_pre(component)?;
        Ok(if v0_1 {
            Self::V0_1(v0_1::AdapterComponentPre::new(pre)?)
        } else {
            Self::V0_2(v0_2::AdapterComponentPre::new(pre)?)
        })
    }

    /// A new instance in `store`.
    pub(crate) fn instantiate(&self, store: &mut Store<Data>) -> wasmtime::Result<Guest> {
        Ok(match self {
            Self::V0_1(pre) => Guest::V0_1(pre.instantiate(store)?),
            Self::V0_2(pre) => Guest::V0_2(pre.instantiate(store)?),
        })
    }
}

/// Calls the same export on either contract's bindings: `$old` converts the
/// arguments for a 0.1.0 component and its result back.
macro_rules! either {
    ($self:ident, $store:ident, |$g:ident| $new:expr, |$o:ident| $old:expr) => {
        match $self {
            Guest::V0_2(bindings) => {
                let $g = bindings.sandbox_agent_adapter_adapter();
                $new
            }
            Guest::V0_1(bindings) => {
                let $o = bindings.sandbox_agent_adapter_adapter();
                $old
            }
        }
    };
}

impl Guest {
    pub(crate) fn info(&self, store: &mut Store<Data>) -> wasmtime::Result<api::AdapterInfo> {
        either!(self, store, |g| g.call_info(store), |o| o
            .call_info(store)
            .map(Into::into))
    }

    pub(crate) fn install_plan(
        &self,
        store: &mut Store<Data>,
        platform: api::Platform,
        version: Option<&str>,
    ) -> wasmtime::Result<Option<api::InstallRecipe>> {
        either!(
            self,
            store,
            |g| g.call_install_plan(store, platform, version),
            |o| o
                .call_install_plan(store, platform.into(), version)
                .map(|plan| plan.map(Into::into))
        )
    }

    pub(crate) fn parse_latest_version(
        &self,
        store: &mut Store<Data>,
        body: &str,
    ) -> wasmtime::Result<Option<String>> {
        either!(
            self,
            store,
            |g| g.call_parse_latest_version(store, body),
            |o| o.call_parse_latest_version(store, body)
        )
    }

    pub(crate) fn version_args(
        &self,
        store: &mut Store<Data>,
    ) -> wasmtime::Result<Option<Vec<String>>> {
        either!(self, store, |g| g.call_version_args(store), |o| o
            .call_version_args(store))
    }

    pub(crate) fn parse_version(
        &self,
        store: &mut Store<Data>,
        output: &str,
    ) -> wasmtime::Result<Option<String>> {
        either!(self, store, |g| g.call_parse_version(store, output), |o| o
            .call_parse_version(store, output))
    }

    pub(crate) fn parse_checksum(
        &self,
        store: &mut Store<Data>,
        url: &str,
        body: &str,
        file_name: &str,
    ) -> wasmtime::Result<Result<String, String>> {
        either!(
            self,
            store,
            |g| g.call_parse_checksum(store, url, body, file_name),
            |_o| Ok(v0_1::parse_checksum(url, body, file_name))
        )
    }

    pub(crate) fn credential_files(
        &self,
        store: &mut Store<Data>,
        home: Option<&str>,
        env: &[(String, String)],
    ) -> wasmtime::Result<Vec<String>> {
        either!(
            self,
            store,
            |g| g.call_credential_files(store, home, env),
            |_o| Ok(Vec::new())
        )
    }

    pub(crate) fn parse_credentials(
        &self,
        store: &mut Store<Data>,
        path: &str,
        text: &str,
    ) -> wasmtime::Result<api::CredentialRead> {
        either!(
            self,
            store,
            |g| g.call_parse_credentials(store, path, text),
            |_o| Ok(api::CredentialRead {
                found: Vec::new(),
                problems: Vec::new(),
            })
        )
    }

    /// A new session resource.
    pub(crate) fn new_session(
        &self,
        store: &mut Store<Data>,
        config: &api::SessionConfig,
    ) -> wasmtime::Result<ResourceAny> {
        either!(
            self,
            store,
            |g| g.session().call_constructor(store, config),
            |o| o.session().call_constructor(store, &config.clone().into())
        )
    }

    /// A session resource rebuilt from a snapshot, or the adapter's refusal.
    pub(crate) fn restore_session(
        &self,
        store: &mut Store<Data>,
        config: &api::SessionConfig,
        state: &[u8],
    ) -> wasmtime::Result<Result<ResourceAny, String>> {
        either!(
            self,
            store,
            |g| g.session().call_restore(store, config, state),
            |o| o
                .session()
                .call_restore(store, &config.clone().into(), state)
        )
    }

    pub(crate) fn snapshot(
        &self,
        store: &mut Store<Data>,
        session: ResourceAny,
    ) -> wasmtime::Result<Vec<u8>> {
        either!(
            self,
            store,
            |g| g.session().call_snapshot(store, session),
            |o| o.session().call_snapshot(store, session)
        )
    }

    /// Feeds `input` to the session.
    pub(crate) fn handle(
        &self,
        store: &mut Store<Data>,
        session: ResourceAny,
        input: Input,
    ) -> wasmtime::Result<GuestActions> {
        match self {
            Guest::V0_2(bindings) => dispatch_v0_2(
                bindings.sandbox_agent_adapter_adapter().session(),
                store,
                session,
                input,
            ),
            Guest::V0_1(bindings) => dispatch_v0_1(
                bindings.sandbox_agent_adapter_adapter().session(),
                store,
                session,
                input,
            ),
        }
    }
}

fn dispatch_v0_2(
    guest: v0_2::guest::GuestSession<'_>,
    store: &mut Store<Data>,
    session: ResourceAny,
    input: Input,
) -> wasmtime::Result<GuestActions> {
    let ok = |actions: wasmtime::Result<Vec<_>>| actions.map(Ok);
    match input {
        Input::Start => ok(guest.call_start(store, session)),
        Input::SendMessage(parts) => {
            let parts: Vec<_> = parts.into_iter().map(Into::into).collect();
            ok(guest.call_send_message(store, session, &parts))
        }
        Input::ReplyPermission {
            permission_id,
            reply,
        } => guest.call_reply_permission(store, session, &permission_id, reply.into()),
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
            ok(guest.call_on_exit(store, session, &process_id, status.into()))
        }
        Input::SpawnFailed {
            process_id,
            message,
        } => ok(guest.call_on_spawn_failed(store, session, &process_id, &message)),
        Input::HttpResponse(response) => {
            ok(guest.call_on_http_response(store, session, &response.into()))
        }
        Input::HttpError {
            request_id,
            message,
        } => ok(guest.call_on_http_error(store, session, &request_id, &message)),
        Input::SseEvent(event) => ok(guest.call_on_sse_event(store, session, &event.into())),
        Input::SseClosed { stream_id, error } => {
            ok(guest.call_on_sse_closed(store, session, &stream_id, error.as_deref()))
        }
        Input::Timer { timer_id } => ok(guest.call_on_timer(store, session, &timer_id)),
    }
}

/// [`dispatch_v0_2`] for a 0.1.0 component: the same calls, with the inputs and
/// the actions converted.
fn dispatch_v0_1(
    guest: v0_1::exports::sandbox_agent::adapter::adapter::GuestSession<'_>,
    store: &mut Store<Data>,
    session: ResourceAny,
    input: Input,
) -> wasmtime::Result<GuestActions> {
    let result: wasmtime::Result<
        Result<Vec<v0_1::sandbox_agent::adapter::actions::Action>, String>,
    > = match input {
        Input::Start => guest.call_start(store, session).map(Ok),
        Input::SendMessage(parts) => {
            let parts: Vec<_> = parts
                .into_iter()
                .map(|part| WitPart::from(part).into())
                .collect();
            guest.call_send_message(store, session, &parts).map(Ok)
        }
        Input::ReplyPermission {
            permission_id,
            reply,
        } => guest.call_reply_permission(
            store,
            session,
            &permission_id,
            WitReply::from(reply).into(),
        ),
        Input::ReplyQuestion {
            question_id,
            answers,
        } => guest.call_reply_question(store, session, &question_id, &answers),
        Input::RejectQuestion { question_id } => {
            guest.call_reject_question(store, session, &question_id)
        }
        Input::CancelTurn => guest.call_cancel_turn(store, session).map(Ok),
        Input::Terminate => guest.call_terminate(store, session).map(Ok),
        Input::Stdout { process_id, line } => guest
            .call_on_stdout(store, session, &process_id, &line)
            .map(Ok),
        Input::Stderr { process_id, line } => guest
            .call_on_stderr(store, session, &process_id, &line)
            .map(Ok),
        Input::Exit { process_id, status } => guest
            .call_on_exit(store, session, &process_id, WitExit::from(status).into())
            .map(Ok),
        Input::SpawnFailed {
            process_id,
            message,
        } => guest
            .call_on_spawn_failed(store, session, &process_id, &message)
            .map(Ok),
        Input::HttpResponse(response) => guest
            .call_on_http_response(store, session, &WitResponse::from(response).into())
            .map(Ok),
        Input::HttpError {
            request_id,
            message,
        } => guest
            .call_on_http_error(store, session, &request_id, &message)
            .map(Ok),
        Input::SseEvent(event) => guest
            .call_on_sse_event(store, session, &WitSseEvent::from(event).into())
            .map(Ok),
        Input::SseClosed { stream_id, error } => guest
            .call_on_sse_closed(store, session, &stream_id, error.as_deref())
            .map(Ok),
        Input::Timer { timer_id } => guest.call_on_timer(store, session, &timer_id).map(Ok),
    };
    result.map(|actions| actions.map(|actions| actions.into_iter().map(Into::into).collect()))
}
