"""``connect()`` and ``connect_async()``: a client of a running daemon, once it is known to
work, or an error that says what is wrong (as the TypeScript SDK's ``connect``)."""

from __future__ import annotations

from typing import Any, NoReturn

from .aio import AsyncAgentplex
from .client import Agentplex
from .errors import AgentplexError, NetworkError, TokenInvalidError
from .generated.models import HealthResponse


def connect(base_url: str, token: str | None = None, **options: Any) -> Agentplex:
    """An ``Agentplex`` client of the daemon at ``base_url`` (``options`` as ``Agentplex``
    takes them), after ``GET /v1/health`` answered as an agentplex daemon does (tried once) and
    ``GET /v1/sessions`` (which needs the token) was allowed. Raises ``NetworkError`` when
    nothing answers there (``TimeoutError`` past the time limit), ``UnexpectedResponseError``
    when something that is not an agentplex daemon does, and ``TokenInvalidError`` when the
    daemon wants a token and none was given, or refused it."""
    client = Agentplex(base_url, token, **options)
    try:
        try:
            health = client.health(max_retries=0)
        except AgentplexError as error:
            _unreachable(client.base_url, error)
        _check_health(client.base_url, health)
        try:
            client.list_sessions()
        except TokenInvalidError as error:
            raise _refused(client.base_url, token, error) from error
    except BaseException:
        client.close()
        raise
    return client


async def connect_async(base_url: str, token: str | None = None, **options: Any) -> AsyncAgentplex:
    """``connect()`` for the asyncio client: an ``AsyncAgentplex`` client once the daemon is
    known to work, with the same errors."""
    client = AsyncAgentplex(base_url, token, **options)
    try:
        try:
            health = await client.health(max_retries=0)
        except AgentplexError as error:
            _unreachable(client.base_url, error)
        _check_health(client.base_url, health)
        try:
            await client.list_sessions()
        except TokenInvalidError as error:
            raise _refused(client.base_url, token, error) from error
    except BaseException:
        await client.aclose()
        raise
    return client


def _unreachable(where: str, error: AgentplexError) -> NoReturn:
    """Raises what a failed health check means: nothing answers, or not a daemon of ours (a
    time limit that passed stays what it is)."""
    if error.status == 0 and not isinstance(error, NetworkError):
        raise error
    if isinstance(error, NetworkError):
        detail = f"nothing answers at {where}: {error.detail or ''}"
        raise AgentplexError.create("network_error", 0, detail) from error
    raise AgentplexError.create(
        "unexpected_response",
        error.status,
        f"{where} is not an agentplex daemon: GET /v1/health answered {error.status}"
        f" ({error.detail or error.title})",
    ) from error


def _check_health(where: str, health: HealthResponse) -> None:
    if health.status != "ok" or not health.version:
        raise AgentplexError.create(
            "unexpected_response",
            200,
            f"{where} is not an agentplex daemon: GET /v1/health answered {health.model_dump_json()[:200]}",
        )


def _refused(where: str, token: str | None, error: TokenInvalidError) -> AgentplexError:
    why = (
        f"the daemon at {where} requires a token and none was given: pass `token`"
        if token is None
        else f"the daemon at {where} refused the token given"
    )
    return AgentplexError.create("token_invalid", 401, why)
