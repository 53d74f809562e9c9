"""Installing an agent (``POST /v1/agents/{agent}/install`` as an event stream): the shapes of
its events, and their decoding, for the sync and async clients. No I/O here."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterable, Iterator
from typing import Literal, Union

from typing_extensions import NotRequired, TypedDict

from ._core import SseDecoder
from .errors import AgentplexError
from .generated.models import ProblemDetails


class InstallProgress(TypedDict):
    """A ``progress`` event of an install (docs/api.md, ``POST /v1/agents/{agent}/install``):
    the wire's JSON object, keys as sent."""

    agent: str
    stage: str
    """``resolving`` (the latest version), ``downloading``, ``verifying``, ``extracting`` or ``npm``."""
    target: NotRequired[str]
    """The URL or package being fetched, when there is one."""
    bytesDone: NotRequired[int]
    bytesTotal: NotRequired[Union[int, None]]
    """Absent (or None) when the server sent no length."""


class InstallResult(TypedDict):
    """The ``result`` event of an install: what was installed."""

    agent: str
    alreadyInstalled: bool
    """True when nothing was downloaded."""
    version: NotRequired[str]
    path: NotRequired[str]
    """Where the binary is."""
    source: NotRequired[str]
    """The URL or ``npm:<package>@<version>`` installed from."""


InstallEvent = Union[tuple[Literal["progress"], InstallProgress], tuple[Literal["result"], InstallResult]]
"""One event of ``install_agent_progress``: ``("progress", {...})`` while it runs, then one
``("result", {...})``."""


def _event(name: str, data: str) -> InstallEvent | None:
    """The event of one SSE message; an ``error`` event raises its problem."""
    try:
        value = json.loads(data)
    except ValueError as error:
        raise AgentplexError.create(
            "unexpected_response", 200, f"an install event is not JSON: {data[:200]}"
        ) from error
    if name == "error":
        raise AgentplexError.from_problem(ProblemDetails.model_validate(value))
    if name == "progress":
        return ("progress", value)
    if name == "result":
        return ("result", value)
    return None


def install_events(lines: Iterable[str]) -> Iterator[InstallEvent]:
    """The events of an install's event stream, up to its result."""
    decoder = SseDecoder()
    for line in lines:
        message = decoder.message(line)
        event = _event(*message) if message is not None else None
        if event is not None:
            yield event
            if event[0] == "result":
                return


async def ainstall_events(lines: AsyncIterator[str]) -> AsyncIterator[InstallEvent]:
    """``install_events`` of an async stream."""
    decoder = SseDecoder()
    async for line in lines:
        message = decoder.message(line)
        event = _event(*message) if message is not None else None
        if event is not None:
            yield event
            if event[0] == "result":
                return


def ended_without_result(agent: str) -> AgentplexError:
    """The error of an install stream that ended before its result."""
    return AgentplexError.create(
        "unexpected_response",
        200,
        f'the install stream of agent "{agent}" ended without a result',
        agent=agent,
    )
