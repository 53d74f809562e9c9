"""What the sync and async clients share: request building, SSE decoding, answers to
requests, the summary of a turn. No I/O here."""

from __future__ import annotations

import json
import random
import time
import urllib.parse
from collections.abc import (
    AsyncIterable,
    AsyncIterator,
    Awaitable,
    Callable,
    Iterable,
    Iterator,
    Mapping,
    Sequence,
)
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar, Union

import httpx
from pydantic import BaseModel, TypeAdapter, ValidationError
from typing_extensions import TypedDict

from .errors import AgentplexError, error_from_response
from .generated.models import (
    MessagePart,
    MessagePartFile,
    MessagePartImage,
    MessagePartText,
    MessageRequest,
    PermissionEventData,
    PermissionReply,
    QuestionEventData,
    UniversalEvent,
    UniversalItem,
    Usage,
)

MessageInput = Union[str, Sequence[Union[MessagePartText, MessagePartImage, MessagePartFile]], MessageRequest]
"""A message: text, a list of parts, or the whole request body (0.1.x ``message`` + ``attachments``)."""

QuestionAnswer = Union[Sequence[Sequence[str]], Sequence[str], Literal["reject"]]
"""An answer to a question: one list of chosen options per prompt (``[["Red"]]``), a flat list
for a single prompt (``["Red"]``), or ``"reject"`` to decline."""

PermissionHandler = Callable[[PermissionEventData, UniversalEvent], Union[PermissionReply, None]]
"""Called for each ``permission.requested``: return ``"once"``, ``"always"`` or ``"reject"``
to reply, or None to leave the request pending."""

QuestionHandler = Callable[[QuestionEventData, UniversalEvent], Union[QuestionAnswer, None]]
"""Called for each ``question.requested``: return the answers (or ``"reject"``) to reply, or
None to leave the question pending."""

AsyncPermissionHandler = Callable[
    [PermissionEventData, UniversalEvent],
    Union[PermissionReply, Awaitable[Union[PermissionReply, None]], None],
]
"""A permission handler of the async client: a plain function or a coroutine function."""

AsyncQuestionHandler = Callable[
    [QuestionEventData, UniversalEvent], Union[QuestionAnswer, Awaitable[Union[QuestionAnswer, None]], None]
]
"""A question handler of the async client: a plain function or a coroutine function."""

DEFAULT_TIMEOUT = 30.0
"""Seconds one call may take, retries included (the TypeScript SDK's ``timeoutMs``, 30 000).
Creating a session, installing an agent and running a process have no limit unless the call
gives one; a stream's limit covers opening it."""


class CallOptions(TypedDict, total=False):
    """What every method takes besides its own arguments, as keyword arguments (the TypeScript
    SDK's ``RequestOptions``; to abort a call of the asyncio client, cancel its task)."""

    timeout: float
    """This call's time limit in seconds, retries included, instead of the client's (0: none;
    None, as when absent: the client's)."""
    max_retries: int
    """This call's retries of an idempotent request, instead of the client's."""


def call_options(timeout: float | None, max_retries: int | None) -> CallOptions:
    """The ``CallOptions`` of a method that takes them as plain keyword arguments (None: the
    client's)."""
    options = CallOptions()
    if timeout is not None:
        options["timeout"] = timeout
    if max_retries is not None:
        options["max_retries"] = max_retries
    return options


def seconds(value: float | httpx.Timeout | None) -> float | None:
    """A time limit in seconds, None for none (0 or None); an ``httpx.Timeout`` (what the 0.2
    clients took) counts as its read limit."""
    if isinstance(value, httpx.Timeout):
        value = value.read
    return float(value) if value else None


def call_limit(options: CallOptions, default: float | None, unlimited: bool = False) -> float | None:
    """The time limit of a call: the call's own, else none for a call that may take long
    (``unlimited``), else the client's."""
    if options.get("timeout") is not None:
        return seconds(options["timeout"])
    return None if unlimited else default


class Deadline:
    """The time left to one call, retries included."""

    def __init__(self, limit: float | None, what: str) -> None:
        self.limit = limit
        """The call's limit in seconds (None: none)."""
        self.what = what
        """The request, for the error's message (``GET /v1/sessions``)."""
        self._end = None if limit is None else time.monotonic() + limit

    def left(self) -> float | None:
        """Seconds left (None: no limit); raises the call's ``TimeoutError`` when none are."""
        if self._end is None:
            return None
        left = self._end - time.monotonic()
        if left <= 0:
            raise self.expired()
        return left

    def timeout(self, read: float | Literal[False] | None = False) -> httpx.Timeout:
        """The time left as httpx's limits of one request; ``read`` bounds each read instead
        (a stream's idle limit; None: none)."""
        left = self.left()
        return httpx.Timeout(left) if read is False else httpx.Timeout(left, read=read)

    def pause(self, delay: float) -> float:
        """``delay``, when the call has that much time left; else raises its ``TimeoutError``."""
        left = self.left()
        if left is not None and delay >= left:
            raise self.expired()
        return delay

    def expired(self) -> AgentplexError:
        """The call's ``TimeoutError`` (code ``timeout``, status 0)."""
        limit = f"{self.limit:g} s" if self.limit is not None else "its time limit"
        return AgentplexError.create("timeout", 0, f"{self.what} took longer than {limit}")


DEFAULT_IDLE_TIMEOUT = 45.0
"""Seconds of silence after which an event stream is taken for dropped (3 daemon keep-alives)."""

M = TypeVar("M", bound=BaseModel)


def seg(value: str) -> str:
    """Percent-encodes one path segment (session, agent, request ids)."""
    return urllib.parse.quote(value, safe="")


def query(**values: Any) -> dict[str, str]:
    """Query parameters without the None ones; booleans as ``true``/``false``."""
    out: dict[str, str] = {}
    for key, value in values.items():
        if value is None:
            continue
        out[key] = ("true" if value else "false") if isinstance(value, bool) else str(value)
    return out


def headers(token: str | None, extra: dict[str, str] | None) -> dict[str, str]:
    """The headers sent with every request: the token and the caller's."""
    out = {"user-agent": "agentplex-python"}
    if token:
        out["authorization"] = f"Bearer {token}"
    out.update(extra or {})
    return out


HeaderPairs = Union[Mapping[str, str], Sequence[tuple[str, str]]]
"""Headers of one request: a mapping, or pairs (a name may repeat)."""


def request_headers(json_body: bool, extra: HeaderPairs | None) -> list[tuple[str, str]]:
    """The headers of one request: the content type of a JSON body, then the call's own."""
    pairs = [("content-type", "application/json")] if json_body else []
    pairs += list(extra.items()) if isinstance(extra, Mapping) else list(extra or [])
    return pairs


def check(response: httpx.Response) -> httpx.Response:
    """The response when its status is 2xx, else its error (the body must have been read)."""
    if response.is_success:
        return response
    raise error_from_response(response.status_code, response.reason_phrase, response.content)


def parse(model: type[M], response: httpx.Response) -> M:
    """The body of a 2xx answer as ``model``."""
    try:
        return model.model_validate_json(response.content)
    except ValidationError as error:
        raise AgentplexError.create(
            "unexpected_response",
            response.status_code,
            f"the answer is not a {model.__name__}: {error}",
        ) from error


def network_error(error: Exception, doing: str) -> AgentplexError:
    """A transport failure as ``network_error`` (status 0)."""
    failure = AgentplexError.create("network_error", 0, f"{doing}: {type(error).__name__}: {error}")
    failure.__cause__ = error
    return failure


def open_failed(error: httpx.HTTPError, deadline: Deadline) -> AgentplexError:
    """The error of a stream that could not be opened: its time limit passed while connecting
    (``TimeoutError``), else a ``NetworkError`` (an answer that did not start within the
    stream's read limit included: a stream reconnects after those)."""
    if isinstance(error, httpx.TimeoutException) and not isinstance(error, httpx.ReadTimeout):
        return deadline.expired()
    return network_error(error, deadline.what)


def to_message_request(message: MessageInput) -> MessageRequest:
    """A ``MessageInput`` as the request body."""
    if isinstance(message, str):
        return MessageRequest(message=message)
    if isinstance(message, MessageRequest):
        return message
    parts: list[MessagePart] = list(message)
    return MessageRequest(parts=parts)


def to_answers(answer: Sequence[Sequence[str]] | Sequence[str]) -> list[list[str]]:
    """One list of options per prompt, from either form."""
    if all(isinstance(a, str) for a in answer):
        return [[str(a) for a in answer]]
    return [list(a) for a in answer]


def retryable(error: BaseException) -> bool:
    """Errors worth a reconnect: no answer, a server error, or a non-SSE answer from a proxy."""
    if not isinstance(error, AgentplexError):
        return True
    return (
        error.status == 0
        or error.status >= 500
        or error.status in (408, 429)
        or (error.code == "unexpected_response" and error.status != 200)
    )


def read_lines(lines: Iterator[str]) -> Iterator[str]:
    """The lines of a streamed answer; a failure while reading is a ``NetworkError``."""
    try:
        yield from lines
    except httpx.HTTPError as error:
        raise network_error(error, "reading the stream") from error


def stream_failed(session_id: str, failures: int, last_error: BaseException | None) -> AgentplexError:
    """The ``StreamError`` of an event stream that kept failing."""
    error = AgentplexError.create(
        "stream_error",
        last_error.status if isinstance(last_error, AgentplexError) else 0,
        f'the event stream of session "{session_id}" failed {failures} times in a row'
        + (f"; last: {last_error}" if last_error is not None else ""),
        session_id=session_id,
    )
    error.__cause__ = last_error
    return error


def backoff(base: float, failures: int) -> float:
    """The delay before reconnect attempt ``failures`` (1, 2...): doubling, at most 5 s."""
    return float(min(base * 2 ** (failures - 1), 5.0))


def request_key(event: UniversalEvent) -> str | None:
    """``permission:<id>`` or ``question:<id>`` for request events, else None."""
    if isinstance(event.data, PermissionEventData) and event.type.startswith("permission."):
        return f"permission:{event.data.permission_id}"
    if isinstance(event.data, QuestionEventData) and event.type.startswith("question."):
        return f"question:{event.data.question_id}"
    return None


def is_resolved(event: UniversalEvent) -> bool:
    """Whether the event resolves a permission request or a question."""
    return event.type in ("permission.resolved", "question.resolved")


@dataclass
class SseDecoder:
    """The WHATWG event-stream format, one line at a time (``data``/``id``/``event`` fields,
    comments). ``EventSource`` semantics: a message is dispatched at a blank line."""

    _data: list[str] = field(default_factory=list)
    _id: str | None = None
    _event: str = ""

    def line(self, line: str) -> str | None:
        """Feeds one line (without its end); the data of a completed message, if any."""
        message = self.message(line)
        return message[1] if message is not None else None

    def message(self, line: str) -> tuple[str, str] | None:
        """Feeds one line; ``(event, data)`` of a completed message, if any."""
        if line == "":
            message = (self._event or "message", "\n".join(self._data)) if self._data else None
            self._data = []
            self._event = ""
            return message
        if line.startswith(":"):
            return None
        name, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data.append(value)
        elif name == "id" and "\0" not in value:
            self._id = value
        elif name == "event":
            self._event = value
        return None


def parse_event(data: str) -> UniversalEvent:
    """One SSE message's data as an event."""
    try:
        return UniversalEvent.model_validate_json(data)
    except ValidationError as error:
        raise AgentplexError.create(
            "unexpected_response", 200, f"an SSE message is not an event: {data[:200]}"
        ) from error


@dataclass(frozen=True)
class StreamSettings:
    """How a session's event stream is read and reopened: the arguments of ``events()``,
    ``stream()`` and ``prompt()``."""

    include_raw: bool = False
    """Include each event's native payload as ``raw``."""
    max_retries: int = 10
    """Reconnect attempts in a row that may fail before ``StreamError``."""
    retry_delay: float = 0.25
    """Seconds before the first reconnect after a failure; doubles up to 5 s."""
    idle_timeout: float = DEFAULT_IDLE_TIMEOUT
    """Seconds of silence after which a connection is taken for dropped (0: never)."""
    timeout: float | None = None
    """The limit of opening each connection (None: the client's)."""

    @property
    def options(self) -> CallOptions:
        """The ``CallOptions`` of each connection."""
        return call_options(self.timeout, None)


@dataclass
class PromptResult:
    """What ``prompt()`` returns: one turn of a session."""

    events: list[UniversalEvent]
    """Every event of the turn, from ``turn.started`` to ``turn.ended`` (or ``session.ended``)."""
    items: list[UniversalItem]
    """The items the turn completed (``item.completed``), in order; the user's message first."""
    text: str
    """The text of the turn's completed assistant messages, separated by a blank line."""
    stop_reason: Literal["turn_ended", "session_ended"]
    """``turn_ended``, or ``session_ended`` when the session ended before its turn did."""
    last_sequence: int
    """The sequence of the turn's last event: the ``offset`` to follow the session from."""
    turn_id: str | None = None
    """The turn's id, when the agent gave one."""
    usage: Usage | None = None
    """Token usage from ``turn.ended``, when the agent reports it."""


def summarize(events: Sequence[UniversalEvent]) -> PromptResult:
    """The ``PromptResult`` of a turn's events."""
    from .generated.models import ContentPartText, ItemEventData, TurnEventData

    items: list[UniversalItem] = []
    turn_id: str | None = None
    usage: Usage | None = None
    for event in events:
        data = event.data
        if event.type == "item.completed" and isinstance(data, ItemEventData):
            items.append(data.item)
        if isinstance(data, TurnEventData) and event.type.startswith("turn."):
            turn_id = turn_id or data.turn_id
            if event.type == "turn.ended" and data.usage is not None:
                usage = data.usage
    texts = [
        "".join(part.text for part in item.content if isinstance(part, ContentPartText))
        for item in items
        if item.kind == "message" and item.role == "assistant"
    ]
    last = events[-1]
    return PromptResult(
        events=list(events),
        items=items,
        text="\n\n".join(t for t in texts if t),
        stop_reason="session_ended" if last.type == "session.ended" else "turn_ended",
        last_sequence=last.sequence,
        turn_id=turn_id,
        usage=usage,
    )


def ends_turn(event: UniversalEvent) -> bool:
    """Whether the event ends a turn (or the whole session)."""
    return event.type in ("turn.ended", "session.ended")


def json_body(model: BaseModel) -> bytes:
    """A request model as the JSON body the daemon expects."""
    return json.dumps(model.model_dump(mode="json", by_alias=True, exclude_none=True)).encode()


RawContent = Union[bytes, Iterable[bytes]]
"""A raw request body as httpx sends it."""


def parse_list(model: type[M], response: httpx.Response) -> list[M]:
    """The body of a 2xx answer as a JSON array of ``model``."""
    try:
        return TypeAdapter(list[model]).validate_json(response.content)  # type: ignore[valid-type]
    except ValidationError as error:
        raise AgentplexError.create(
            "unexpected_response",
            response.status_code,
            f"the answer is not a list of {model.__name__}: {error}",
        ) from error


AsyncRawContent = Union[bytes, Iterable[bytes], AsyncIterable[bytes]]
"""A raw request body as httpx's async client sends it."""


async def aread_lines(lines: AsyncIterator[str]) -> AsyncIterator[str]:
    """``read_lines`` of an async stream."""
    try:
        async for line in lines:
            yield line
    except httpx.HTTPError as error:
        raise network_error(error, "reading the stream") from error


def abyte_chunks(body: bytes | str | Iterable[bytes] | AsyncIterable[bytes]) -> AsyncRawContent:
    """``byte_chunks`` for the async client, which also streams async iterables."""
    if isinstance(body, str):
        return body.encode()
    return body


def byte_chunks(body: bytes | str | Iterable[bytes]) -> bytes | Iterable[bytes]:
    """A raw body: bytes as they are, a string as UTF-8, an iterable of chunks streamed."""
    if isinstance(body, str):
        return body.encode()
    return body


DEFAULT_MAX_RETRIES = 2
"""Retries of an idempotent request after a connection failure or a 502/503/504."""
DEFAULT_RETRY_DELAY = 0.2
"""The first retry's delay in seconds; it doubles (with jitter) up to 5 s."""
RETRY_STATUSES = frozenset({502, 503, 504})


def retries(method: str, content: object, options: CallOptions, default: int) -> int:
    """How many times a request may be sent again: every ``GET``, and a ``PUT`` whose body is
    bytes (not a stream, which cannot be replayed), up to the call's (or the client's)
    ``max_retries``. ``POST`` and ``DELETE`` are never repeated."""
    if method == "GET" or (method == "PUT" and isinstance(content, bytes)):
        return options.get("max_retries", default)
    return 0


def transient(error: httpx.HTTPError) -> bool:
    """A failure worth one more try: the connection failed or dropped (a time limit is not)."""
    return isinstance(error, (httpx.NetworkError, httpx.RemoteProtocolError))


def retry_delay(first: float, attempt: int) -> float:
    """The delay before retry number ``attempt`` (from 0): doubling, at most 5 s, give or take
    a quarter (the TypeScript SDK's)."""
    delay: float = min(first * 2.0**attempt, 5.0)
    return delay * (0.75 + random.random() / 2)
