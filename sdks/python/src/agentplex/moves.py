"""What the sync and async clients share for moving a session between daemons (``GET
/v1/sessions/{id}/export``, ``POST /v1/sessions/{id}/import``): paths, the import's query and
headers, and the archive's chunks as they are read. No I/O here."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from urllib.parse import urlencode

import httpx

from . import _core
from ._core import seg
from .errors import AgentplexError
from .generated.models import ImportSessionQuery

IMPORT_ENV_HEADER = "x-agentplex-env"
"""The header an import takes secret variables in, form-encoded (``A=1&B=2``)."""

NATIVE_LOST_HEADER = "x-agentplex-native-lost"
"""The header of an export that says why the agent's own session is not in the archive."""

EXPORT_HEADERS = {"accept": "application/gzip"}
"""The headers of an export."""


def export_path(id: str) -> str:
    """The path of a session's export."""
    return f"/v1/sessions/{seg(id)}/export"


def import_path(id: str) -> str:
    """The path of an import under ``id``."""
    return f"/v1/sessions/{seg(id)}/import"


def import_params(directory: str | None) -> dict[str, str]:
    """The query of an import."""
    wire: dict[str, str] = ImportSessionQuery(directory=directory).to_wire()
    return wire


def import_headers(env: Mapping[str, str] | None) -> list[tuple[str, str]]:
    """The headers of an import: its content type, and the secret variables given,
    form-encoded in one ``x-agentplex-env`` header (``A=1&B=2``). Raises
    ``InvalidRequestError`` (status 0) for a name that is no variable name."""
    headers = [("content-type", "application/gzip")]
    pairs = list((env or {}).items())
    for name, _ in pairs:
        if not name:
            raise AgentplexError.create("invalid_request", 0, f"env: {name!r} is not a variable name")
    if pairs:
        headers.append((IMPORT_ENV_HEADER, urlencode(pairs)))
    return headers


def native_lost(response: httpx.Response, callback: Callable[[str], None] | None) -> None:
    """Tells ``callback`` why the agent's own session is not in the export, when it is not."""
    lost = response.headers.get(NATIVE_LOST_HEADER)
    if lost is not None and callback is not None:
        callback(lost)


def chunks(stream: Iterator[bytes], id: str) -> Iterator[bytes]:
    """The chunks of an export as they are read; a failure reading them is a ``NetworkError``."""
    try:
        yield from stream
    except httpx.HTTPError as error:
        raise _core.network_error(error, f'reading the archive of session "{id}"') from error


async def achunks(stream: AsyncIterator[bytes], id: str) -> AsyncIterator[bytes]:
    """``chunks`` of an async stream."""
    try:
        async for chunk in stream:
            yield chunk
    except httpx.HTTPError as error:
        raise _core.network_error(error, f'reading the archive of session "{id}"') from error
