"""Installing an agent (``POST /v1/agents/{agent}/install``, and ``POST /v1/registry/{agent}``
that adds an agent of the ACP registry and installs it, as event streams): the shapes of their
events, their decoding, and their result, for the sync and async clients. No I/O here."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Sequence
from typing import Literal, Union

from typing_extensions import NotRequired, TypedDict

from ._core import SseDecoder
from .errors import AgentplexError
from .generated.models import ProblemDetails, RegistryAddRequest


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
"""One event of ``install_agent_progress`` and ``add_from_registry_progress``: ``("progress",
{...})`` while it runs, then one ``("result", {...})``."""

EnvNames = Sequence[str]
"""The ``env`` of ``add_from_registry``: names of variables of the daemon's environment the agent's
processes are given (its API key, its base URL); one string is one name."""

ProgressHandler = Callable[[InstallProgress], None]
"""What ``on_progress`` of ``install_agent`` and ``add_from_registry`` is called with."""


def registry_request(env: EnvNames | None, reinstall: bool) -> RegistryAddRequest:
    """The body of ``POST /v1/registry/{agent}``: what is not the default only."""
    names = None if env is None else [env] if isinstance(env, str) else list(env)
    return RegistryAddRequest(env=names, reinstall=reinstall or None)


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


def outcome(events: Iterable[InstallEvent], agent: str, on_progress: ProgressHandler | None) -> InstallResult:
    """The ``result`` of an install's events, each ``progress`` handed to ``on_progress`` first."""
    for event in events:
        if event[0] == "result":
            return event[1]
        if on_progress is not None:
            on_progress(event[1])
    raise ended_without_result(agent)


async def aoutcome(
    events: AsyncIterator[InstallEvent], agent: str, on_progress: ProgressHandler | None
) -> InstallResult:
    """``outcome`` of an async stream."""
    async for event in events:
        if event[0] == "result":
            return event[1]
        if on_progress is not None:
            on_progress(event[1])
    raise ended_without_result(agent)
