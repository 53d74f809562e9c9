"""What the groups of methods a client inherits (``agentplex.processes_client``,
``agentplex.desktop_client`` and their ``aio_`` twins) use of the client: ``ClientBase``
declares it for ``Agentplex``, ``AsyncClientBase`` for ``AsyncAgentplex``. Declared only, for
the type checker: the clients define it (their constructor and request layer)."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

import httpx

from . import _core
from ._core import CallOptions


class ClientBase:
    """What ``Agentplex`` gives the groups of methods it inherits."""

    base_url: str
    token: str | None
    _timeout: float | None
    _headers: dict[str, str]

    if TYPE_CHECKING:

        def _request(
            self,
            method: str,
            path: str,
            options: CallOptions,
            *,
            params: dict[str, Any] | None = None,
            body: Any = None,
            content: _core.RawContent | None = None,
            headers: _core.HeaderPairs | None = None,
            unlimited: bool = False,
        ) -> httpx.Response:
            """``Agentplex._request``: sends a request; the response when 2xx."""

        def _open(
            self,
            method: str,
            path: str,
            options: CallOptions,
            *,
            params: dict[str, Any] | None = None,
            body: Any = None,
            headers: dict[str, str] | None = None,
            read_timeout: float | None = None,
            unlimited: bool = False,
        ) -> contextlib.AbstractContextManager[httpx.Response]:
            """``Agentplex._open``: opens a streamed answer, closed on leaving the block."""


class AsyncClientBase:
    """What ``AsyncAgentplex`` gives the groups of methods it inherits."""

    base_url: str
    token: str | None
    _timeout: float | None
    _headers: dict[str, str]

    if TYPE_CHECKING:

        async def _request(
            self,
            method: str,
            path: str,
            options: CallOptions,
            *,
            params: dict[str, Any] | None = None,
            body: Any = None,
            content: _core.AsyncRawContent | None = None,
            headers: _core.HeaderPairs | None = None,
            unlimited: bool = False,
        ) -> httpx.Response:
            """``AsyncAgentplex._request``: sends a request; the response when 2xx."""

        def _open(
            self,
            method: str,
            path: str,
            options: CallOptions,
            *,
            params: dict[str, Any] | None = None,
            body: Any = None,
            headers: dict[str, str] | None = None,
            read_timeout: float | None = None,
            unlimited: bool = False,
        ) -> contextlib.AbstractAsyncContextManager[httpx.Response]:
            """``AsyncAgentplex._open``: opens a streamed answer, closed on leaving the block."""
