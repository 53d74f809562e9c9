"""``AsyncSession``: one daemon session of the asyncio client, with the methods of ``Session``
(awaited; ``events()`` and ``stream()`` are async iterators). Handlers may be plain functions or
coroutine functions."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, TypeVar

import httpx

from . import _core
from ._core import (
    AsyncPermissionHandler,
    AsyncQuestionHandler,
    MessageInput,
    PromptResult,
    QuestionAnswer,
    seg,
)
from .errors import SandboxAgentError
from .generated.models import (
    CreateSessionResponse,
    EventsResponse,
    PermissionEventData,
    PermissionReply,
    PermissionReplyRequest,
    QuestionEventData,
    QuestionReplyRequest,
    SessionInfo,
    UniversalEvent,
)

T = TypeVar("T")

if TYPE_CHECKING:
    from .aio import AsyncClient


class AsyncSession:
    """A handle on the session ``id`` of an ``AsyncClient``."""

    def __init__(
        self,
        client: AsyncClient,
        id: str,
        *,
        info: SessionInfo | None = None,
        created: CreateSessionResponse | None = None,
    ) -> None:
        self.client = client
        self.id = id
        """The session id."""
        self.info = info
        """The session as last listed (``get_session``, ``refresh``); None until then."""
        self.created = created
        """The daemon's answer to the creation, for a session made by ``create_session``."""
        self._permission_listeners: list[AsyncPermissionHandler] = []
        self._question_listeners: list[AsyncQuestionHandler] = []

    @property
    def _path(self) -> str:
        return f"/v1/sessions/{seg(self.id)}"

    def on_permission(self, listener: AsyncPermissionHandler) -> AsyncSession:
        """Adds a permission listener (a function or a coroutine function); the rule for who
        answers is ``Session.on_permission``'s: the call's own handler, then the listeners in
        the order added, the first reply answers."""
        self._permission_listeners.append(listener)
        return self

    def on_question(self, listener: AsyncQuestionHandler) -> AsyncSession:
        """Adds a question listener; the same rule as ``on_permission``."""
        self._question_listeners.append(listener)
        return self

    def off_permission(self, listener: AsyncPermissionHandler) -> AsyncSession:
        """Removes a permission listener added with ``on_permission`` (no error if absent)."""
        _core.discard(self._permission_listeners, listener)
        return self

    def off_question(self, listener: AsyncQuestionHandler) -> AsyncSession:
        """Removes a question listener added with ``on_question`` (no error if absent)."""
        _core.discard(self._question_listeners, listener)
        return self

    async def refresh(self) -> SessionInfo:
        """Reads the session again (``GET /v1/sessions/{id}``) and updates ``info``."""
        self.info = await self.client._session_info(self.id)
        return self.info

    async def send(self, message: MessageInput) -> None:
        """``POST .../messages``: sends a message. It starts a turn at once, or waits in the
        queue while a turn runs. Returns when the daemon accepted it."""
        await self.client._request("POST", f"{self._path}/messages", body=_core.to_message_request(message))

    async def get_events(
        self, offset: int | None = None, *, limit: int | None = None, include_raw: bool = False
    ) -> EventsResponse:
        """``GET .../events``: a page of the transcript after ``offset``."""
        params = _core.query(offset=offset, limit=limit, includeRaw=include_raw or None)
        return _core.parse(
            EventsResponse, await self.client._request("GET", f"{self._path}/events", params=params)
        )

    async def events(
        self,
        offset: int = 0,
        *,
        include_raw: bool = False,
        on_permission: AsyncPermissionHandler | None = None,
        on_question: AsyncQuestionHandler | None = None,
        max_retries: int = 10,
        retry_delay: float = 0.25,
        idle_timeout: float = _core.DEFAULT_IDLE_TIMEOUT,
    ) -> AsyncIterator[UniversalEvent]:
        """The transcript after ``offset``, then live events as they happen (``GET .../events/sse``).

        A dropped connection (or a restarted daemon) is reopened with ``Last-Event-ID`` = the
        last sequence yielded, so no event is repeated or skipped; ``max_retries`` failed
        reconnects in a row raise ``StreamError``. Ends after ``session.ended``. Permission and
        question handlers run before their event is yielded; requests resolved before the
        iteration started are not handed to them.
        """
        on_permission = _first_reply([on_permission, *self._permission_listeners])
        on_question = _first_reply([on_question, *self._question_listeners])
        settled: set[str] = set()
        if on_permission or on_question:
            settled = await self._settled(offset)
        async for event in self._follow(offset, include_raw, max_retries, retry_delay, idle_timeout):
            await self._answer(event, on_permission, on_question, settled)
            yield event

    async def stream(
        self,
        message: MessageInput,
        *,
        include_raw: bool = False,
        on_permission: AsyncPermissionHandler | None = None,
        on_question: AsyncQuestionHandler | None = None,
        max_retries: int = 10,
        retry_delay: float = 0.25,
        idle_timeout: float = _core.DEFAULT_IDLE_TIMEOUT,
    ) -> AsyncIterator[UniversalEvent]:
        """Sends ``message`` and yields the events of its turn as they come, until ``turn.ended``
        (or ``session.ended``): ``POST .../messages/stream``, then ``.../events/sse`` after a
        request that needs the client. Permission requests and questions go to the handlers
        (the call's, else the session's); without one, the turn waits until someone replies."""
        on_permission = _first_reply([on_permission, *self._permission_listeners])
        on_question = _first_reply([on_question, *self._question_listeners])
        settled: set[str] = set()
        last = 0
        params = _core.query(includeRaw=include_raw or None)
        body = _core.to_message_request(message)
        async with self.client._open(
            "POST", f"{self._path}/messages/stream", params=params, body=body, read_timeout=idle_timeout
        ) as response:
            decoder = _core.SseDecoder()
            try:
                async for line in response.aiter_lines():
                    data = decoder.line(line)
                    if data is None:
                        continue
                    event = _core.parse_event(data)
                    await self._answer(event, on_permission, on_question, settled)
                    last = event.sequence
                    yield event
                    if _core.ends_turn(event):
                        return
            except httpx.HTTPError:
                pass  # dropped: follow the rest below
        if last == 0:
            await self._nothing_came()
        async for event in self._follow(last, include_raw, max_retries, retry_delay, idle_timeout):
            await self._answer(event, on_permission, on_question, settled)
            yield event
            if _core.ends_turn(event):
                return

    async def prompt(
        self,
        message: MessageInput,
        *,
        include_raw: bool = False,
        on_permission: AsyncPermissionHandler | None = None,
        on_question: AsyncQuestionHandler | None = None,
        on_event: Callable[[UniversalEvent], Awaitable[None] | None] | None = None,
        max_retries: int = 10,
        retry_delay: float = 0.25,
        idle_timeout: float = _core.DEFAULT_IDLE_TIMEOUT,
    ) -> PromptResult:
        """Sends ``message`` and returns when its turn ends, with the turn's events, completed
        items and assistant text (``stream()`` collected). ``on_event`` sees every event as it
        arrives (deltas included)."""
        events: list[UniversalEvent] = []
        async for event in self.stream(
            message,
            include_raw=include_raw,
            on_permission=on_permission,
            on_question=on_question,
            max_retries=max_retries,
            retry_delay=retry_delay,
            idle_timeout=idle_timeout,
        ):
            events.append(event)
            if on_event is not None:
                await _maybe_await(on_event(event))
        return _core.summarize(events)

    async def reply_permission(self, permission_id: str, reply: PermissionReply) -> None:
        """``POST .../permissions/{id}/reply``: ``once``, ``always`` or ``reject``."""
        path = f"{self._path}/permissions/{seg(permission_id)}/reply"
        await self.client._request("POST", path, body=PermissionReplyRequest(reply=reply))

    async def reply_question(
        self, question_id: str, answers: Sequence[Sequence[str]] | Sequence[str]
    ) -> None:
        """``POST .../questions/{id}/reply``: one list of chosen options per prompt, or a flat
        list for a single prompt."""
        path = f"{self._path}/questions/{seg(question_id)}/reply"
        await self.client._request("POST", path, body=QuestionReplyRequest(answers=_core.to_answers(answers)))

    async def reject_question(self, question_id: str) -> None:
        """``POST .../questions/{id}/reject``: declines to answer."""
        await self.client._request("POST", f"{self._path}/questions/{seg(question_id)}/reject")

    async def cancel(self) -> None:
        """``POST .../cancel``: interrupts the running turn and keeps the session."""
        await self.client._request("POST", f"{self._path}/cancel")

    async def terminate(self) -> None:
        """``POST .../terminate``: ends the session and kills its processes."""
        await self.client._request("POST", f"{self._path}/terminate")

    async def delete(self) -> None:
        """``DELETE /v1/sessions/{id}``: removes the session and its transcript for good."""
        await self.client._request("DELETE", self._path)

    # -- internals --------------------------------------------------------------------------

    async def _nothing_came(self) -> None:
        """Raises why a turn stream brought no event."""
        if (await self.refresh()).ended:
            raise SandboxAgentError.create(
                "session_ended",
                409,
                f'session "{self.id}" ended before the message\'s turn started',
                session_id=self.id,
            )
        raise SandboxAgentError.create(
            "stream_error",
            0,
            f'the turn stream of session "{self.id}" ended before the turn started',
            session_id=self.id,
        )

    async def _settled(self, offset: int) -> set[str]:
        """The requests resolved in the transcript after ``offset``: handlers must not see them."""
        return {
            key
            for event in (await self.get_events(offset)).events
            if _core.is_resolved(event) and (key := _core.request_key(event)) is not None
        }

    async def _answer(
        self,
        event: UniversalEvent,
        on_permission: AsyncPermissionHandler | None,
        on_question: AsyncQuestionHandler | None,
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
                reply = await _maybe_await(on_permission(data, event))
                if reply is not None:
                    settled.add(key)
                    await self.reply_permission(data.permission_id, reply)
            elif isinstance(data, QuestionEventData) and on_question is not None:
                answer = await _maybe_await(on_question(data, event))
                if answer is not None:
                    settled.add(key)
                    await self._answer_question(data.question_id, answer)
        except SandboxAgentError as error:
            # The request is gone (answered elsewhere, cancelled, the session ended).
            if error.code not in ("request_not_found", "session_ended"):
                raise

    async def _answer_question(self, question_id: str, answer: QuestionAnswer) -> None:
        if isinstance(answer, str):
            await self.reject_question(question_id)
        else:
            await self.reply_question(question_id, answer)

    async def _follow(
        self, offset: int, include_raw: bool, max_retries: int, retry_delay: float, idle_timeout: float
    ) -> AsyncIterator[UniversalEvent]:
        """The SSE transcript after ``offset``, reconnecting with ``Last-Event-ID`` from the last
        sequence yielded; fills a gap from ``GET .../events`` should one ever appear."""
        last = offset
        failures = 0
        delay = 0.0
        last_error: BaseException | None = None
        while True:
            if failures > max_retries:
                raise _core.stream_failed(self.id, failures, last_error)
            if delay > 0:
                await asyncio.sleep(delay)
            alive = progressed = False
            try:
                async with self.client._open(
                    "GET",
                    f"{self._path}/events/sse",
                    params=_core.query(offset=last, includeRaw=include_raw or None),
                    headers={"last-event-id": str(last)} if last > 0 else {},
                    read_timeout=idle_timeout,
                ) as response:
                    decoder = _core.SseDecoder()
                    async for line in _core.aread_lines(response.aiter_lines()):
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
                            batch = [*(await self._missing(last, event.sequence, include_raw)), event]
                        for item in batch:
                            last = item.sequence
                            progressed = True
                            yield item
                            if item.type == "session.ended":
                                return
            except SandboxAgentError as error:
                if not _core.retryable(error):
                    raise
                last_error = error
            # The stream ended or dropped before `session.ended`.
            if not progressed:
                try:
                    info = await self.refresh()
                    if info.ended and info.event_count <= last:
                        return
                except SandboxAgentError as error:
                    if not _core.retryable(error):
                        raise
                    last_error = error
                    alive = False
            if alive:
                delay = 0.0 if progressed else retry_delay
            else:
                failures += 1
                delay = _core.backoff(retry_delay, failures)

    async def _missing(self, after: int, before: int, include_raw: bool) -> list[UniversalEvent]:
        """Events strictly between ``after`` and ``before``, from ``GET .../events``."""
        page = await self.get_events(after, limit=before - after - 1, include_raw=include_raw)
        return [e for e in page.events if after < e.sequence < before]


async def _maybe_await(value: T | Awaitable[T]) -> T:
    """A handler's result, awaited when the handler was a coroutine function."""
    if inspect.isawaitable(value):
        return await value
    return value


Req = TypeVar("Req")
Ans = TypeVar("Ans")


def _first_reply(
    handlers: Sequence[Callable[[Req, UniversalEvent], Ans | Awaitable[Ans | None] | None] | None],
) -> Callable[[Req, UniversalEvent], Awaitable[Ans | None]] | None:
    """One handler that asks ``handlers`` in order (awaiting coroutine ones) and answers with
    the first reply; None when there is no handler at all."""
    present = [handler for handler in handlers if handler is not None]
    if not present:
        return None

    async def ask(request: Req, event: UniversalEvent) -> Ans | None:
        for handler in present:
            reply = await _maybe_await(handler(request, event))
            if reply is not None:
                return reply
        return None

    return ask
