//! A linked adapter component of any supported contract, called with the 0.5.0
//! contract's values: the one place that knows which contract a component speaks.

use wasmtime::component::{Component, InstancePre, Linker, ResourceAny};
use wasmtime::{Engine, Store};

use crate::bindings::{actions, guest as api, v0_1, v0_2, v0_3, v0_4, v0_5};
use crate::limits::InstanceData;
use crate::Input;

use actions::{ExitStatus as WitExit, HttpResponse as WitResponse, SseEvent as WitSseEvent};
use api::{MessagePart as WitPart, PermissionReply as WitReply};

type Data = InstanceData;

/// A component linked against its contract, ready to instantiate.
pub(crate) enum GuestPre {
    V0_1(v0_1::AdapterComponentPre<Data>),
    V0_2(v0_2::AdapterComponentPre<Data>),
    V0_3(v0_3::AdapterComponentPre<Data>),
    V0_4(v0_4::AdapterComponentPre<Data>),
    V0_5(v0_5::AdapterComponentPre<Data>),
}

/// One instance of an adapter component.
pub(crate) enum Guest {
    V0_1(v0_1::AdapterComponent),
    V0_2(v0_2::AdapterComponent),
    V0_3(v0_3::AdapterComponent),
    V0_4(v0_4::AdapterComponent),
    V0_5(v0_5::AdapterComponent),
}

/// Why a component of a contract before 0.3.0 cannot move its agent's session.
const BEFORE_MOVES: &str = "the adapter was built against a contract before \
    sandbox-agent:adapter@0.3.0, which cannot move the agent's own session";

/// What a session call returns: actions, or the adapter's refusal of a reply.
pub(crate) type GuestActions = Result<Vec<actions::Action>, String>;

impl GuestPre {
    /// Links `component` as the contract `version` it exports (`0.1.0`, `0.2.0`,
    /// `0.3.0`, `0.4.0`, `0.5.0`): the host's imports are defined, every other import (WASI)
    /// traps.
    pub(crate) fn link(
        engine: &Engine,
        component: &Component,
        version: &str,
    ) -> wasmtime::Result<Self> {
        type Own = wasmtime::component::HasSelf<Data>;
        let mut linker = Linker::<Data>::new(engine);
        let minor = version.split('.').nth(1).unwrap_or_default();
        match minor {
            "1" => {}
            "2" => v0_2::host::add_to_linker::<_, Own>(&mut linker, |data| data)?,
            "3" => v0_3::host::add_to_linker::<_, Own>(&mut linker, |data| data)?,
            "4" => v0_4::host::add_to_linker::<_, Own>(&mut linker, |data| data)?,
            _ => v0_5::host::add_to_linker::<_, Own>(&mut linker, |data| data)?,
        }
        // Guests built for wasm32-wasip2 import WASI even when they never use it;
        // those imports are satisfied with functions that trap: nothing is granted.
        linker.define_unknown_imports_as_traps(component)?;
        let pre: InstancePre<Data> = linker.instantiate_pre(component)?;
        Ok(match minor {
            "1" => Self::V0_1(v0_1::AdapterComponentPre::new(pre)?),
            "2" => Self::V0_2(v0_2::AdapterComponentPre::new(pre)?),
            "3" => Self::V0_3(v0_3::AdapterComponentPre::new(pre)?),
            "4" => Self::V0_4(v0_4::AdapterComponentPre::new(pre)?),
            _ => Self::V0_5(v0_5::AdapterComponentPre::new(pre)?),
        })
    }

    /// A new instance in `store`.
    pub(crate) fn instantiate(&self, store: &mut Store<Data>) -> wasmtime::Result<Guest> {
        Ok(match self {
            Self::V0_1(pre) => Guest::V0_1(pre.instantiate(store)?),
            Self::V0_2(pre) => Guest::V0_2(pre.instantiate(store)?),
            Self::V0_3(pre) => Guest::V0_3(pre.instantiate(store)?),
            Self::V0_4(pre) => Guest::V0_4(pre.instantiate(store)?),
            Self::V0_5(pre) => Guest::V0_5(pre.instantiate(store)?),
        })
    }
}

/// Calls the same export on any contract's bindings: `$new` for a 0.5.0 component,
/// `$mid` for a 0.4.0, 0.3.0 or 0.2.0 one (the same code, on each one's types) and `$old`
/// for a 0.1.0 one, each converting the arguments and the result as its contract
/// needs.
macro_rules! either {
    ($self:ident, $store:ident, |$g:ident| $new:expr, |$m:ident| $mid:expr, |$o:ident| $old:expr) => {
        match $self {
            Guest::V0_5(bindings) => {
                let $g = bindings.sandbox_agent_adapter_adapter();
                $new
            }
            Guest::V0_4(bindings) => {
                let $m = bindings.sandbox_agent_adapter_adapter();
                $mid
            }
            Guest::V0_3(bindings) => {
                let $m = bindings.sandbox_agent_adapter_adapter();
                $mid
            }
            Guest::V0_2(bindings) => {
                let $m = bindings.sandbox_agent_adapter_adapter();
                $mid
            }
            Guest::V0_1(bindings) => {
                let $o = bindings.sandbox_agent_adapter_adapter();
                $old
            }
        }
    };
}

/// Feeds `input` to the session `$guest` of a 0.5.0, 0.4.0, 0.3.0 or 0.2.0 component, whose
/// actions are the same; `$part` and `$reply` convert a message part and a
/// permission reply to the component's own.
macro_rules! dispatch {
    ($guest:ident, $store:ident, $session:ident, $input:ident, |$p:ident| $part:expr, |$r:ident| $reply:expr) => {{
        let (guest, store, session) = ($guest, $store, $session);
        let ok = |actions: wasmtime::Result<Vec<_>>| actions.map(Ok);
        match $input {
            Input::Start => ok(guest.call_start(store, session)),
            Input::SendMessage(parts) => {
                let parts: Vec<_> = parts.into_iter().map(|$p| $part).collect();
                ok(guest.call_send_message(store, session, &parts))
            }
            Input::ReplyPermission {
                permission_id,
                reply: $r,
            } => guest.call_reply_permission(store, session, &permission_id, $reply),
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
            // Components before 0.5.0 hand their agents no rules.
            Input::SetPolicy(_) => Ok(Ok(Vec::new())),
        }
    }};
}

impl Guest {
    pub(crate) fn info(&self, store: &mut Store<Data>) -> wasmtime::Result<api::AdapterInfo> {
        either!(
            self,
            store,
            |g| g.call_info(store),
            |m| m.call_info(store).map(Into::into),
            |o| o.call_info(store).map(Into::into)
        )
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
            |m| m
                .call_install_plan(store, platform.into(), version)
                .map(|plan| plan.map(Into::into)),
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
            |m| m.call_parse_latest_version(store, body),
            |o| o.call_parse_latest_version(store, body)
        )
    }

    pub(crate) fn version_args(
        &self,
        store: &mut Store<Data>,
    ) -> wasmtime::Result<Option<Vec<String>>> {
        either!(
            self,
            store,
            |g| g.call_version_args(store),
            |m| m.call_version_args(store),
            |o| o.call_version_args(store)
        )
    }

    pub(crate) fn parse_version(
        &self,
        store: &mut Store<Data>,
        output: &str,
    ) -> wasmtime::Result<Option<String>> {
        either!(
            self,
            store,
            |g| g.call_parse_version(store, output),
            |m| m.call_parse_version(store, output),
            |o| o.call_parse_version(store, output)
        )
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
            |m| m.call_parse_checksum(store, url, body, file_name),
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
            |m| m.call_credential_files(store, home, env),
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
            |m| m.call_parse_credentials(store, path, text).map(Into::into),
            |_o| Ok(api::CredentialRead {
                found: Vec::new(),
                problems: Vec::new(),
            })
        )
    }

    /// The files holding the agent's own session `native_id` at `at`, or why it
    /// cannot move (always, for components of contracts before 0.3.0).
    pub(crate) fn native_session_files(
        &self,
        store: &mut Store<Data>,
        native_id: &str,
        at: &api::Place,
    ) -> wasmtime::Result<Result<Vec<api::NativeSource>, String>> {
        match self {
            Guest::V0_5(bindings) => bindings
                .sandbox_agent_adapter_adapter()
                .call_native_session_files(store, native_id, at),
            Guest::V0_4(bindings) => bindings
                .sandbox_agent_adapter_adapter()
                .call_native_session_files(store, native_id, &at.clone().into())
                .map(|files| files.map(|files| files.into_iter().map(Into::into).collect())),
            Guest::V0_3(bindings) => bindings
                .sandbox_agent_adapter_adapter()
                .call_native_session_files(store, native_id, &at.clone().into())
                .map(|files| files.map(|files| files.into_iter().map(Into::into).collect())),
            Guest::V0_2(_) | Guest::V0_1(_) => Ok(Err(BEFORE_MOVES.to_owned())),
        }
    }

    /// Where a native session file goes at `to`, and what it holds there.
    pub(crate) fn move_native_file(
        &self,
        store: &mut Store<Data>,
        path: &str,
        contents: &[u8],
        from: &api::Place,
        to: &api::Place,
    ) -> wasmtime::Result<Result<api::Landing, String>> {
        match self {
            Guest::V0_5(bindings) => bindings
                .sandbox_agent_adapter_adapter()
                .call_move_native_file(store, path, contents, from, to),
            Guest::V0_4(bindings) => bindings
                .sandbox_agent_adapter_adapter()
                .call_move_native_file(
                    store,
                    path,
                    contents,
                    &from.clone().into(),
                    &to.clone().into(),
                )
                .map(|landing| landing.map(Into::into)),
            Guest::V0_3(bindings) => bindings
                .sandbox_agent_adapter_adapter()
                .call_move_native_file(
                    store,
                    path,
                    contents,
                    &from.clone().into(),
                    &to.clone().into(),
                )
                .map(|landing| landing.map(Into::into)),
            Guest::V0_2(_) | Guest::V0_1(_) => Ok(Err(BEFORE_MOVES.to_owned())),
        }
    }

    /// The formats of the agent's model calls the daemon can carry; none for
    /// components of contracts before 0.4.0, whose calls are not metered.
    pub(crate) fn model_apis(
        &self,
        store: &mut Store<Data>,
    ) -> wasmtime::Result<Vec<api::ModelApi>> {
        match self {
            Guest::V0_5(bindings) => bindings
                .sandbox_agent_adapter_adapter()
                .call_model_apis(store),
            Guest::V0_4(bindings) => bindings
                .sandbox_agent_adapter_adapter()
                .call_model_apis(store)
                .map(|apis| apis.into_iter().map(Into::into).collect()),
            Guest::V0_3(_) | Guest::V0_2(_) | Guest::V0_1(_) => Ok(Vec::new()),
        }
    }

    /// The kinds of action the agent asks permission for; none known for
    /// components of contracts before 0.5.0, whose requests the policy leaves to
    /// the client.
    pub(crate) fn asks_for(&self, store: &mut Store<Data>) -> wasmtime::Result<Vec<api::ToolKind>> {
        match self {
            Guest::V0_5(bindings) => bindings
                .sandbox_agent_adapter_adapter()
                .call_asks_for(store),
            _ => Ok(Vec::new()),
        }
    }

    /// What the pending permission request `permission_id` asks for; `None` for
    /// components of contracts before 0.5.0.
    pub(crate) fn describe_permission(
        &self,
        store: &mut Store<Data>,
        session: ResourceAny,
        permission_id: &str,
    ) -> wasmtime::Result<Option<api::ToolRequest>> {
        match self {
            Guest::V0_5(bindings) => bindings
                .sandbox_agent_adapter_adapter()
                .session()
                .call_describe_permission(store, session, permission_id),
            _ => Ok(None),
        }
    }

    /// Hands the session its replaced approval policy; nothing for components of
    /// contracts before 0.5.0.
    fn set_policy(
        &self,
        store: &mut Store<Data>,
        session: ResourceAny,
        policy: Option<&api::ApprovalPolicy>,
    ) -> wasmtime::Result<GuestActions> {
        match self {
            Guest::V0_5(bindings) => bindings
                .sandbox_agent_adapter_adapter()
                .session()
                .call_set_policy(store, session, policy)
                .map(Ok),
            _ => Ok(Ok(Vec::new())),
        }
    }

    /// The calls the agent decided by its native rules since the last call; none
    /// for components of contracts before 0.5.0.
    pub(crate) fn native_decisions(
        &self,
        store: &mut Store<Data>,
        session: ResourceAny,
    ) -> wasmtime::Result<Vec<api::NativeDecision>> {
        match self {
            Guest::V0_5(bindings) => bindings
                .sandbox_agent_adapter_adapter()
                .session()
                .call_native_decisions(store, session),
            _ => Ok(Vec::new()),
        }
    }

    /// What the agent offers, when it said something new since the last call;
    /// nothing for components of contracts before 0.5.0.
    pub(crate) fn agent_offer(
        &self,
        store: &mut Store<Data>,
        session: ResourceAny,
    ) -> wasmtime::Result<Option<api::AgentOffer>> {
        match self {
            Guest::V0_5(bindings) => bindings
                .sandbox_agent_adapter_adapter()
                .session()
                .call_agent_offer(store, session),
            _ => Ok(None),
        }
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
            |m| m.session().call_constructor(store, &config.clone().into()),
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
            |m| m
                .session()
                .call_restore(store, &config.clone().into(), state),
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
            |m| m.session().call_snapshot(store, session),
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
        if let Input::SetPolicy(document) = &input {
            let policy = document.as_ref().map(crate::policy::approval_policy);
            return self.set_policy(store, session, policy.as_ref());
        }
        match self {
            Guest::V0_5(bindings) => {
                let guest = bindings.sandbox_agent_adapter_adapter().session();
                dispatch!(guest, store, session, input, |part| part.into(), |reply| {
                    reply.into()
                })
            }
            Guest::V0_4(bindings) => {
                let guest = bindings.sandbox_agent_adapter_adapter().session();
                dispatch!(
                    guest,
                    store,
                    session,
                    input,
                    |part| WitPart::from(part).into(),
                    |reply| WitReply::from(reply).into()
                )
            }
            Guest::V0_3(bindings) => {
                let guest = bindings.sandbox_agent_adapter_adapter().session();
                dispatch!(
                    guest,
                    store,
                    session,
                    input,
                    |part| WitPart::from(part).into(),
                    |reply| WitReply::from(reply).into()
                )
            }
            Guest::V0_2(bindings) => {
                let guest = bindings.sandbox_agent_adapter_adapter().session();
                dispatch!(
                    guest,
                    store,
                    session,
                    input,
                    |part| WitPart::from(part).into(),
                    |reply| WitReply::from(reply).into()
                )
            }
            Guest::V0_1(bindings) => dispatch_v0_1(
                bindings.sandbox_agent_adapter_adapter().session(),
                store,
                session,
                input,
            ),
        }
    }
}

/// [`dispatch!`] for a 0.1.0 component: the same calls, with the inputs and
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
        Input::SetPolicy(_) => Ok(Ok(Vec::new())),
    };
    result.map(|actions| actions.map(|actions| actions.into_iter().map(Into::into).collect()))
}
