"""``Session``: one daemon session of the synchronous client. Sends messages, reads the
transcript (a page, or a live iterator that reconnects without losing or repeating an event),
answers permission requests and questions, cancels and terminates; ``prompt()`` runs one turn
and returns what it produced."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import httpx
from typing_extensions import Unpack

from . import _core
from ._core import (
    CallOptions,
    MessageInput,
    PermissionHandler,
    PromptResult,
    QuestionAnswer,
    QuestionHandler,
    seg,
)
from .errors import AgentplexError
from .generated.models import (
    ApprovalPolicy,
    BudgetLimits,
    CreateSessionResponse,
    EventsResponse,
    PermissionEventData,
    PermissionReply,
    PermissionReplyRequest,
    QuestionEventData,
    QuestionReplyRequest,
    SessionChoices,
    SessionInfo,
    SessionModes,
    UniversalEvent,
)
from .listeners import Listeners

if TYPE_CHECKING:
    from .client import Agentplex

Req = TypeVar("Req")
Ans = TypeVar("Ans")


class Session(Listeners[PermissionHandler, QuestionHandler]):
    """A handle on the session ``id`` of an ``Agentplex`` client. Every method that makes one
    request takes ``timeout=`` and ``max_retries=`` (``CallOptions``)."""

    def __init__(
        self,
        client: Agentplex,
        id: str,
        *,
        info: SessionInfo | None = None,
        created: CreateSessionResponse | None = None,
    ) -> None:
        super().__init__()
        self.client = client
        self.id = id
        """The session id."""
        self.info = info
        """The session as last read (``get_session``, ``refresh``); None until then."""
        self.created = created
        """The daemon's answer to the creation, for a session made by ``create_session``."""

    @property
    def _path(self) -> str:
        return f"/v1/sessions/{seg(self.id)}"

    def refresh(self, **options: Unpack[CallOptions]) -> SessionInfo:
        """Reads the session again (``GET /v1/sessions/{id}``) and updates ``info``."""
        self.info = self.client._session_info(self.id, options)
        return self.info

    def send(self, message: MessageInput, **options: Unpack[CallOptions]) -> None:
        """``POST .../messages``: sends a message. It starts a turn at once, or waits in the
        queue while a turn runs. Returns when the daemon accepted it."""
        body = _core.to_message_request(message)
        self.client._request("POST", f"{self._path}/messages", options, body=body)

    def get_events(
        self,
        offset: int | None = None,
        *,
        limit: int | None = None,
        include_raw: bool = False,
        **options: Unpack[CallOptions],
    ) -> EventsResponse:
        """``GET .../events``: a page of the transcript after ``offset``."""
        params = _core.query(offset=offset, limit=limit, includeRaw=include_raw or None)
        answer = self.client._request("GET", f"{self._path}/events", options, params=params)
        return _core.parse(EventsResponse, answer)

    def events(
        self,
        offset: int = 0,
        *,
        include_raw: bool = False,
        on_permission: PermissionHandler | None = None,
        on_question: QuestionHandler | None = None,
        max_retries: int = 10,
        retry_delay: float = 0.25,
        idle_timeout: float = _core.DEFAULT_IDLE_TIMEOUT,
        timeout: float | None = None,
    ) -> Iterator[UniversalEvent]:
        """The transcript after ``offset``, then live events as they happen (``GET .../events/sse``).

        A dropped connection (or a restarted daemon) is reopened with ``Last-Event-ID`` = the
        last sequence yielded, so no event is repeated or skipped; ``max_retries`` failed
        reconnects in a row raise ``StreamError``. Ends after ``session.ended``. Permission and
        question handlers run before their event is yielded; requests resolved before the
        iteration started are not handed to them. ``idle_timeout`` (0: none) takes a silent
        connection for dropped; ``timeout`` bounds opening each connection (the client's when
        None).
        """
        settings = _core.StreamSettings(include_raw, max_retries, retry_delay, idle_timeout, timeout)
        on_permission = _first_reply([on_permission, *self._permission_listeners])
        on_question = _first_reply([on_question, *self._question_listeners])
        settled: set[str] = set()
        if on_permission or on_question:
            settled = self._settled(offset, settings)
        for event in self._follow(offset, settings):
            self._answer(event, on_permission, on_question, settled)
            yield event

    def stream(
        self,
        message: MessageInput,
        *,
        include_raw: bool = False,
        on_permission: PermissionHandler | None = None,
        on_question: QuestionHandler | None = None,
        max_retries: int = 10,
        retry_delay: float = 0.25,
        idle_timeout: float = _core.DEFAULT_IDLE_TIMEOUT,
        timeout: float | None = None,
    ) -> Iterator[UniversalEvent]:
        """Sends ``message`` and yields the events of its turn as they come, until ``turn.ended``
        (or ``session.ended``): ``POST .../messages/stream``, then ``.../events/sse`` after a
        request that needs the client (or a dropped connection). Permission requests and
        questions go to the handlers (the call's, else the session's) before their event is
        yielded; without one, the turn waits until someone replies. The other arguments are
        those of ``events()``."""
        settings = _core.StreamSettings(include_raw, max_retries, retry_delay, idle_timeout, timeout)
        on_permission = _first_reply([on_permission, *self._permission_listeners])
        on_question = _first_reply([on_question, *self._question_listeners])
        settled: set[str] = set()
        last = 0
        params = _core.query(includeRaw=include_raw or None)
        body = _core.to_message_request(message)
        with self.client._open(
            "POST",
            f"{self._path}/messages/stream",
            settings.options,
            params=params,
            body=body,
            read_timeout=idle_timeout,
        ) as response:
            decoder = _core.SseDecoder()
            try:
                for line in response.iter_lines():
                    data = decoder.line(line)
                    if data is None:
                        continue
                    event = _core.parse_event(data)
                    self._answer(event, on_permission, on_question, settled)
                    last = event.sequence
                    yield event
                    if _core.ends_turn(event):
                        return
            except httpx.HTTPError:
                pass  # dropped: follow the rest below
        if last == 0:
            self._nothing_came()
        for event in self._follow(last, settings):
            self._answer(event, on_permission, on_question, settled)
            yield event
            if _core.ends_turn(event):
                return

    def prompt(
        self,
        message: MessageInput,
        *,
        include_raw: bool = False,
        on_permission: PermissionHandler | None = None,
        on_question: QuestionHandler | None = None,
        on_event: Callable[[UniversalEvent], None] | None = None,
        max_retries: int = 10,
        retry_delay: float = 0.25,
        idle_timeout: float = _core.DEFAULT_IDLE_TIMEOUT,
        timeout: float | None = None,
    ) -> PromptResult:
        """Sends ``message`` and returns when its turn ends, with the turn's events, completed
        items and assistant text (``stream()`` collected). ``on_event`` sees every event as it
        arrives (deltas included)."""
        events: list[UniversalEvent] = []
        for event in self.stream(
            message,
            include_raw=include_raw,
            on_permission=on_permission,
            on_question=on_question,
            max_retries=max_retries,
            retry_delay=retry_delay,
            idle_timeout=idle_timeout,
            timeout=timeout,
        ):
            events.append(event)
            if on_event is not None:
                on_event(event)
        return _core.summarize(events)

    def reply_permission(
        self, permission_id: str, reply: PermissionReply, **options: Unpack[CallOptions]
    ) -> None:
        """``POST .../permissions/{id}/reply``: ``once``, ``always`` or ``reject``."""
        path = f"{self._path}/permissions/{seg(permission_id)}/reply"
        self.client._request("POST", path, options, body=PermissionReplyRequest(reply=reply))

    def reply_question(
        self,
        question_id: str,
        answers: Sequence[Sequence[str]] | Sequence[str],
        **options: Unpack[CallOptions],
    ) -> None:
        """``POST .../questions/{id}/reply``: one list of chosen options per prompt, or a flat
        list for a single prompt."""
        path = f"{self._path}/questions/{seg(question_id)}/reply"
        body = QuestionReplyRequest(answers=_core.to_answers(answers))
        self.client._request("POST", path, options, body=body)

    def reject_question(self, question_id: str, **options: Unpack[CallOptions]) -> None:
        """``POST .../questions/{id}/reject``: declines to answer."""
        self.client._request("POST", f"{self._path}/questions/{seg(question_id)}/reject", options)

    def cancel(self, **options: Unpack[CallOptions]) -> None:
        """``POST .../cancel``: interrupts the running turn and keeps the session."""
        self.client._request("POST", f"{self._path}/cancel", options)

    def set_budget(
        self,
        max_cost_usd: float | None = None,
        max_tokens: int | None = None,
        **options: Unpack[CallOptions],
    ) -> BudgetLimits:
        """``PUT .../budget``: replaces the caps on what the session's model calls may spend
        (the daemon needs ``--gateway``). In force at once: raising a reached cap lets the
        calls go on. Returns the caps as stored."""
        limits = BudgetLimits(maxCostUsd=max_cost_usd, maxTokens=max_tokens)
        answer = self.client._request("PUT", f"{self._path}/budget", options, body=limits)
        return _core.parse(BudgetLimits, answer)

    def set_policy(
        self, policy: ApprovalPolicy | dict[str, Any], **options: Unpack[CallOptions]
    ) -> ApprovalPolicy:
        """``PUT .../policy``: replaces the session's approval policy; permission requests
        asked from now on are decided with it. A policy that cannot be used raises
        ``InvalidRequestError`` naming the rule and field. Returns the policy as kept."""
        path = f"{self._path}/policy"
        if isinstance(policy, ApprovalPolicy):
            answer = self.client._request("PUT", path, options, body=policy)
        else:
            # As given: the daemon, not the model, says what is wrong with it.
            content = json.dumps(policy).encode()
            headers = [("content-type", "application/json")]
            answer = self.client._request("PUT", path, options, content=content, headers=headers)
        return _core.parse(ApprovalPolicy, answer)

    def get_modes(self, **options: Unpack[CallOptions]) -> SessionChoices:
        """``GET .../modes``: the session's agent mode, permission mode, model and variant,
        and what its running agent offers to change them to (``offered``: its own modes and
        models, once an agent that says so has run)."""
        answer = self.client._request("GET", f"{self._path}/modes", options)
        return _core.parse(SessionChoices, answer)

    def set_modes(
        self,
        agent_mode: str | None = None,
        permission_mode: str | None = None,
        model: str | None = None,
        variant: str | None = None,
        **options: Unpack[CallOptions],
    ) -> SessionModes:
        """``PUT .../modes``: changes the session's agent mode, permission mode, model or
        its variant (reasoning effort...) while it runs (one left out keeps its value), from
        the next message on. A mode the agent does not have, or an agent that cannot change
        modes (or its model, or its variant) in a running session, raises
        ``ModeNotSupportedError``. Returns both modes, the model and the variant."""
        modes = SessionModes(
            agentMode=agent_mode, permissionMode=permission_mode, model=model, variant=variant
        )
        answer = self.client._request("PUT", f"{self._path}/modes", options, body=modes)
        return _core.parse(SessionModes, answer)

    def terminate(self, **options: Unpack[CallOptions]) -> None:
        """``POST .../terminate``: ends the session and kills its processes."""
        self.client._request("POST", f"{self._path}/terminate", options)

    def delete(self, **options: Unpack[CallOptions]) -> None:
        """``DELETE /v1/sessions/{id}``: removes the session and its transcript for good."""
        self.client._request("DELETE", self._path, options)

    # -- internals --------------------------------------------------------------------------

    def _nothing_came(self) -> None:
        """Raises why a turn stream brought no event."""
        if self.refresh().ended:
            raise AgentplexError.create(
                "session_ended",
                409,
                f'session "{self.id}" ended before the message\'s turn started',
                session_id=self.id,
            )
        raise AgentplexError.create(
            "stream_error",
            0,
            f'the turn stream of session "{self.id}" ended before the turn started',
            session_id=self.id,
        )

    def _settled(self, offset: int, settings: _core.StreamSettings) -> set[str]:
        """The requests resolved in the transcript after ``offset``: handlers must not see them."""
        return {
            key
            for event in self.get_events(offset, **settings.options).events
            if _core.is_resolved(event) and (key := _core.request_key(event)) is not None
        }

    def _answer(
        self,
        event: UniversalEvent,
        on_permission: PermissionHandler | None,
        on_question: QuestionHandler | None,
        settled: set[str],
    ) -> None:
        """Hands a request to its handler and sends the handler's reply."""
        key = _core.request_key(event)
        if key is None:
            return
        if _core.is_resolved(event) or key in settled:
            settled.add(key)
            return
        data = event.data
        try:
            if isinstance(data, PermissionEventData) and on_permission is not None:
                reply = on_permission(data, event)
                if reply is not None:
                    settled.add(key)
                    self.reply_permission(data.permission_id, reply)
            elif isinstance(data, QuestionEventData) and on_question is not None:
                answer = on_question(data, event)
                if answer is not None:
                    settled.add(key)
                    self._answer_question(data.question_id, answer)
        except AgentplexError as error:
            # The request is gone (answered elsewhere, cancelled, the session ended).
            if error.code not in ("request_not_found", "session_ended"):
                raise

    def _answer_question(self, question_id: str, answer: QuestionAnswer) -> None:
        if isinstance(answer, str):
            self.reject_question(question_id)
        else:
            self.reply_question(question_id, answer)

    def _follow(self, offset: int, settings: _core.StreamSettings) -> Iterator[UniversalEvent]:
        """The SSE transcript after ``offset``, reconnecting with ``Last-Event-ID`` from the last
        sequence yielded; fills a gap from ``GET .../events`` should one ever appear."""
        last = offset
        failures = 0
        delay = 0.0
        last_error: BaseException | None = None
        while True:
            if failures > settings.max_retries:
                raise _core.stream_failed(self.id, failures, last_error)
            if delay > 0:
                time.sleep(delay)
            alive = progressed = False
            try:
                with self.client._open(
                    "GET",
                    f"{self._path}/events/sse",
                    settings.options,
                    params=_core.query(offset=last, includeRaw=settings.include_raw or None),
                    headers={"last-event-id": str(last)} if last > 0 else {},
                    read_timeout=settings.idle_timeout,
                ) as response:
                    decoder = _core.SseDecoder()
                    for line in _core.read_lines(response.iter_lines()):
                        alive = True
                        failures = 0
                        data = decoder.line(line)
                        if data is None:
                            continue
                        event = _core.parse_event(data)
                        if event.sequence <= last:
                            continue
                        batch = [event]
                        if event.sequence > last + 1:
                            batch = [*self._missing(last, event.sequence, settings), event]
                        for item in batch:
                            last = item.sequence
                            progressed = True
                            yield item
                            if item.type == "session.ended":
                                return
            except AgentplexError as error:
                if not _core.retryable(error):
                    raise
                last_error = error
            # The stream ended or dropped before `session.ended`.
            if not progressed:
                try:
                    info = self.refresh(**settings.options)
                    if info.ended and info.event_count <= last:
                        return
                except AgentplexError as error:
                    if not _core.retryable(error):
                        raise
                    last_error = error
                    alive = False
            if alive:
                delay = 0.0 if progressed else settings.retry_delay
            else:
                failures += 1
                delay = _core.backoff(settings.retry_delay, failures)

    def _missing(self, after: int, before: int, settings: _core.StreamSettings) -> list[UniversalEvent]:
        """Events strictly between ``after`` and ``before``, from ``GET .../events``."""
        limit = before - after - 1
        page = self.get_events(after, limit=limit, include_raw=settings.include_raw, **settings.options)
        return [e for e in page.events if after < e.sequence < before]


def _first_reply(
    handlers: Sequence[Callable[[Req, UniversalEvent], Ans | None] | None],
) -> Callable[[Req, UniversalEvent], Ans | None] | None:
    """One handler that asks ``handlers`` in order and answers with the first reply; None when
    there is no handler at all."""
    present = [handler for handler in handlers if handler is not None]
    if not present:
        return None

    def ask(request: Req, event: UniversalEvent) -> Ans | None:
        for handler in present:
            reply = handler(request, event)
            if reply is not None:
                return reply
        return None

    return ask
