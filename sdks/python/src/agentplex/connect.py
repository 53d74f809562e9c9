"""``connect()`` and ``connect_async()``: a client of a running daemon, once it is known to
work, or an error that says what is wrong (as the TypeScript SDK's ``connect``)."""

from __future__ import annotations

from typing import Any

from .aio import AsyncClient
from .client import Client
from .errors import NetworkError, SandboxAgentError, TokenInvalidError
from .generated.models import HealthResponse


def connect(base_url: str, token: str | None = None, **options: Any) -> Client:
    """A ``Client`` of the daemon at ``base_url`` (``options`` as ``Client`` takes them), after
    ``GET /v1/health`` answered as a sandbox-agent daemon does and ``GET /v1/sessions`` (which
    needs the token) was allowed. Raises ``NetworkError`` when nothing answers there,
    ``UnexpectedResponseError`` when something that is not a sandbox-agent daemon does, and
    ``TokenInvalidError`` when the daemon wants a token and none was given, or refused it."""
    client = Client(base_url, token, **options)
    try:
        try:
            health = client.health()
        except SandboxAgentError as error:
            raise _unreachable(client.base_url, error) from error
        _check_health(client.base_url, health)
        try:
            client.list_sessions()
        except TokenInvalidError as error:
            raise _refused(client.base_url, token, error) from error
    except BaseException:
        client.close()
        raise
    return client


async def connect_async(base_url: str, token: str | None = None, **options: Any) -> AsyncClient:
    """``connect()`` for the asyncio client: an ``AsyncClient`` once the daemon is known to
    work, with the same errors."""
    client = AsyncClient(base_url, token, **options)
    try:
        try:
            health = await client.health()
        except SandboxAgentError as error:
            raise _unreachable(client.base_url, error) from error
        _check_health(client.base_url, health)
        try:
            await client.list_sessions()
        except TokenInvalidError as error:
            raise _refused(client.base_url, token, error) from error
    except BaseException:
        await client.aclose()
        raise
    return client


def _unreachable(where: str, error: SandboxAgentError) -> SandboxAgentError:
    """What a failed health check means: nothing answers, or not a daemon of ours."""
    if isinstance(error, NetworkError):
        detail = f"nothing answers at {where}: {error.detail or ''}"
        return SandboxAgentError.create("network_error", 0, detail)
    return SandboxAgentError.create(
        "unexpected_response",
        error.status,
        f"{where} is not a sandbox-agent daemon: GET /v1/health answered {error.status}"
        f" ({error.detail or error.title})",
    )


def _check_health(where: str, health: HealthResponse) -> None:
    if health.status != "ok" or not health.version:
        raise SandboxAgentError.create(
            "unexpected_response",
            200,
            f"{where} is not a sandbox-agent daemon:"
            f" GET /v1/health answered {health.model_dump_json()[:200]}",
        )


def _refused(where: str, token: str | None, error: TokenInvalidError) -> SandboxAgentError:
    why = (
        f"the daemon at {where} requires a token and none was given: pass `token`"
        if token is None
        else f"the daemon at {where} refused the token given"
    )
    return SandboxAgentError.create("token_invalid", 401, why)
