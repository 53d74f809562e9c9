"""``AsyncAgentplex``: the asyncio client of the daemon's ``/v1`` routes, with the methods of
``Agentplex``, awaited (``AsyncClient``, its 0.2 name, is a deprecated alias). Session routes
live on ``AsyncSession`` (``agentplex.aio_session``); the process and desktop routes are in the
classes it inherits, ``AsyncProcessMethods`` (``agentplex.aio_processes_client``) and
``AsyncDesktopMethods`` (``agentplex.aio_desktop_client``). To abort a call, cancel its task."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import (
    AsyncGenerator,
    AsyncIterable,
    AsyncIterator,
    Callable,
    Iterable,
    Mapping,
)
from types import TracebackType
from typing import Any

import httpx
from typing_extensions import Unpack

from . import _core, acp, install, moves
from ._core import CallOptions, seg
from .aio_desktop_client import AsyncDesktopMethods
from .aio_processes_client import AsyncProcessMethods
from .aio_session import AsyncSession
from .generated.models import (
    AcpServerInfo,
    AcpServerList,
    AdaptersReloadResponse,
    AgentInfo,
    AgentInstallRequest,
    AgentListResponse,
    AgentModeInfo,
    AgentModelsResponse,
    AgentModesResponse,
    CreateSessionRequest,
    CreateSessionResponse,
    FsActionResponse,
    FsDeleteQuery,
    FsEntriesQuery,
    FsEntry,
    FsMoveRequest,
    FsMoveResponse,
    FsPathQuery,
    FsSessionQuery,
    FsStat,
    FsUploadBatchQuery,
    FsUploadBatchResponse,
    FsWriteResponse,
    HealthResponse,
    ImportSessionResponse,
    RegistryListResponse,
    SessionInfo,
    SessionListResponse,
    SessionScope,
)

AsyncFsBody = bytes | str | Iterable[bytes] | AsyncIterable[bytes]
"""A raw body of ``AsyncAgentplex`` (``write_fs_file``, ``upload_fs_batch``,
``import_session``): bytes, a string (as UTF-8), or an iterable or async iterable of byte
chunks (sent chunked as it is read, never held whole)."""


class AsyncAgentplex(AsyncProcessMethods, AsyncDesktopMethods):
    """The asyncio client of the daemon at ``base_url`` (``http://127.0.0.1:2468``; a path prefix is kept).

    ``token`` is sent as ``Authorization: Bearer <token>``. Use it as a context manager, or
    call ``close()``, to release its connections. ``timeout`` is the time limit of one call in
    seconds, retries included (30; 0 or None: none), past which it raises ``TimeoutError``;
    ``max_retries`` and ``retry_delay`` (seconds, doubling) set how an idempotent request
    (``GET``; ``PUT`` of bytes) is sent again after a dropped connection or a 502/503/504.
    ``POST`` and ``DELETE`` are never sent twice. Every method takes ``timeout=`` and
    ``max_retries=`` for itself (``CallOptions``).
    """

    def __init__(
        self,
        base_url: str,
        token: str | None = None,
        *,
        headers: dict[str, str] | None = None,
        timeout: float | httpx.Timeout | None = _core.DEFAULT_TIMEOUT,
        max_retries: int = _core.DEFAULT_MAX_RETRIES,
        retry_delay: float = _core.DEFAULT_RETRY_DELAY,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        if not base_url:
            raise ValueError("base_url is required")
        self.base_url = base_url.rstrip("/")
        """The daemon's address, without a trailing slash."""
        self.token = token
        """The token sent with every request, if any."""
        self._timeout = _core.seconds(timeout)
        self._max_retries = max_retries
        self._retry_delay = retry_delay
        self._headers = _core.headers(token, headers)
        self._http = httpx.AsyncClient(base_url=self.base_url, headers=self._headers, transport=transport)

    async def aclose(self) -> None:
        """Closes the client's connections."""
        await self._http.aclose()

    async def __aenter__(self) -> AsyncAgentplex:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.aclose()

    # -- the request layer ------------------------------------------------------------------

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
        """Sends a request within the call's time limit (none for a call that may take long:
        ``unlimited``); the response when 2xx, else its ``AgentplexError``. An idempotent one
        is sent again after a dropped connection or a 502/503/504 (``_core.retries``)."""
        payload = _core.json_body(body) if body is not None else content
        retries = _core.retries(method, payload, options, self._max_retries)
        deadline = _core.Deadline(_core.call_limit(options, self._timeout, unlimited), f"{method} {path}")
        attempt = 0
        while True:
            try:
                response = await self._http.request(
                    method,
                    path,
                    params=params,
                    content=payload,
                    headers=_core.request_headers(body is not None, headers),
                    timeout=deadline.timeout(),
                )
            except httpx.TimeoutException as error:
                raise deadline.expired() from error
            except httpx.HTTPError as error:
                if attempt < retries and _core.transient(error):
                    await asyncio.sleep(deadline.pause(_core.retry_delay(self._retry_delay, attempt)))
                    attempt += 1
                    continue
                raise _core.network_error(error, f"{method} {path}") from error
            if attempt < retries and response.status_code in _core.RETRY_STATUSES:
                await asyncio.sleep(deadline.pause(_core.retry_delay(self._retry_delay, attempt)))
                attempt += 1
                continue
            return _core.check(response)

    @contextlib.asynccontextmanager
    async def _open(
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
    ) -> AsyncIterator[httpx.Response]:
        """Opens a streamed answer; yields it once its status is 2xx, closes it after. The
        call's time limit covers opening it; ``read_timeout`` bounds each read after (None or
        0: none), a silent stream then failing as a ``NetworkError``."""
        deadline = _core.Deadline(_core.call_limit(options, self._timeout, unlimited), f"{method} {path}")
        request = self._http.build_request(
            method,
            path,
            params=params,
            content=_core.json_body(body) if body is not None else None,
            headers={
                "accept": "text/event-stream",
                **({"content-type": "application/json"} if body is not None else {}),
                **(headers or {}),
            },
            timeout=deadline.timeout(read=read_timeout or None),
        )
        try:
            response = await self._http.send(request, stream=True)
        except httpx.HTTPError as error:
            raise _core.open_failed(error, deadline) from error
        try:
            if not response.is_success:
                try:
                    await response.aread()
                except httpx.HTTPError as error:
                    raise _core.network_error(error, f"{method} {path}") from error
                _core.check(response)
            yield response
        finally:
            await response.aclose()

    # -- the daemon and its agents ------------------------------------------------------------

    async def health(self, **options: Unpack[CallOptions]) -> HealthResponse:
        """``GET /v1/health``: ``status`` ``ok`` and the daemon's ``version``. Needs no token."""
        return _core.parse(HealthResponse, await self._request("GET", "/v1/health", options))

    async def openapi(self, **options: Unpack[CallOptions]) -> dict[str, Any]:
        """``GET /v1/openapi.json``: the daemon's OpenAPI document."""
        document: dict[str, Any] = (await self._request("GET", "/v1/openapi.json", options)).json()
        return document

    async def metrics(self, **options: Unpack[CallOptions]) -> str:
        """``GET /metrics``: the daemon's metrics in the OpenMetrics text format."""
        return (await self._request("GET", "/metrics", options)).text

    def acp_url(
        self,
        agent: str,
        *,
        model: str | None = None,
        agent_mode: str | None = None,
        permission_mode: str | None = None,
    ) -> str:
        """The endpoint of ``agent`` over ACP's remote transport (``/acp/{agent}``), for an ACP
        client library's HTTP stream (``ws:`` for its WebSocket stream): the daemon is then an
        ACP agent running ``agent``; the options apply to the sessions it creates."""
        return acp.remote_url(
            self.base_url, agent, model=model, agent_mode=agent_mode, permission_mode=permission_mode
        )

    def acp_server_url(
        self,
        server_id: str,
        agent: str,
        *,
        model: str | None = None,
        agent_mode: str | None = None,
        permission_mode: str | None = None,
    ) -> str:
        """The endpoint of ACP connection ``server_id`` over the reference's transport
        (``/v1/acp/{server_id}``: POST messages, GET the SSE stream, DELETE to close), naming
        the agent it runs on the first POST."""
        return acp.server_url(
            self.base_url,
            server_id,
            agent,
            model=model,
            agent_mode=agent_mode,
            permission_mode=permission_mode,
        )

    async def list_acp_servers(self, **options: Unpack[CallOptions]) -> list[AcpServerInfo]:
        """``GET /v1/acp``: the open ACP connections of both HTTP transports."""
        return _core.parse(AcpServerList, await self._request("GET", "/v1/acp", options)).servers

    async def list_agents(self, **options: Unpack[CallOptions]) -> list[AgentInfo]:
        """``GET /v1/agents``: every agent the daemon can drive, with install state and capabilities."""
        return _core.parse(AgentListResponse, await self._request("GET", "/v1/agents", options)).agents

    async def list_agent_modes(self, agent: str, **options: Unpack[CallOptions]) -> list[AgentModeInfo]:
        """``GET /v1/agents/{agent}/modes``."""
        answer = await self._request("GET", f"/v1/agents/{seg(agent)}/modes", options)
        return _core.parse(AgentModesResponse, answer).modes

    async def list_agent_models(self, agent: str, **options: Unpack[CallOptions]) -> AgentModelsResponse:
        """``GET /v1/agents/{agent}/models``: the models, and ``default_model``."""
        return _core.parse(
            AgentModelsResponse, await self._request("GET", f"/v1/agents/{seg(agent)}/models", options)
        )

    async def install_agent(
        self,
        agent: str,
        *,
        reinstall: bool | None = None,
        version: str | None = None,
        on_progress: install.ProgressHandler | None = None,
        **options: Unpack[CallOptions],
    ) -> install.InstallResult:
        """``POST /v1/agents/{agent}/install``: installs the agent's binary (nothing to do for
        builtins) and returns what was installed. ``on_progress`` sees each step as it runs
        (the route's event-stream mode). A failure raises ``InstallFailedError`` whose
        ``detail`` names each source tried. No time limit unless the call gives ``timeout``
        (it then covers the wait for the daemon's answer)."""
        progress = self.install_agent_progress(agent, reinstall=reinstall, version=version, **options)
        async with contextlib.aclosing(progress) as events:
            return await install.aoutcome(events, agent, on_progress)

    async def install_agent_progress(
        self,
        agent: str,
        *,
        reinstall: bool | None = None,
        version: str | None = None,
        **options: Unpack[CallOptions],
    ) -> AsyncGenerator[install.InstallEvent, None]:
        """``POST /v1/agents/{agent}/install`` as an event stream: ``("progress", {...})`` pairs
        while it runs, then one ``("result", {...})``; an ``error`` event raises its problem."""
        request = AgentInstallRequest(reinstall=reinstall, version=version)
        path = f"/v1/agents/{seg(agent)}/install"
        async with self._open("POST", path, options, body=request, unlimited=True) as response:
            async for event in install.ainstall_events(_core.aread_lines(response.aiter_lines())):
                yield event

    async def list_registry(
        self, *, refresh: bool = False, **options: Unpack[CallOptions]
    ) -> RegistryListResponse:
        """``GET /v1/registry``: the agents of the ACP registry's index (the public index of agents
        speaking the Agent Client Protocol), where it came from (``source``, ``fetched_at``,
        ``stale``), and for each whether it installs here and whether it was added. ``refresh``
        fetches the index anew. ``StreamError`` (502) when there is no index to show."""
        params = _core.query(refresh=refresh or None)
        answer = await self._request("GET", "/v1/registry", options, params=params)
        return _core.parse(RegistryListResponse, answer)

    async def add_from_registry(
        self,
        agent: str,
        *,
        env: install.EnvNames | None = None,
        reinstall: bool = False,
        on_progress: install.ProgressHandler | None = None,
        **options: Unpack[CallOptions],
    ) -> install.InstallResult:
        """``POST /v1/registry/{agent}``: adds the ACP registry's agent to the daemon and installs
        it; returns what was installed, and the agent is then in ``list_agents()`` and takes
        sessions. ``env`` names variables of the daemon's environment the agent is given (its
        API key); ``on_progress`` sees each install step. Raises ``UnsupportedAgentError`` (404)
        when the registry lists no such agent, ``InvalidRequestError`` (409) when the id is one
        of the daemon's own agents, ``InstallFailedError`` when the install fails,
        ``StreamError`` (502) when the index cannot be fetched. No time limit unless the call
        gives ``timeout``."""
        progress = self.add_from_registry_progress(agent, env=env, reinstall=reinstall, **options)
        async with contextlib.aclosing(progress) as events:
            return await install.aoutcome(events, agent, on_progress)

    async def add_from_registry_progress(
        self,
        agent: str,
        *,
        env: install.EnvNames | None = None,
        reinstall: bool = False,
        **options: Unpack[CallOptions],
    ) -> AsyncGenerator[install.InstallEvent, None]:
        """``POST /v1/registry/{agent}`` as an event stream: ``("progress", {...})`` pairs while
        the agent installs, then one ``("result", {...})``; the errors of ``add_from_registry``."""
        request = install.registry_request(env, reinstall)
        path = f"/v1/registry/{seg(agent)}"
        async with self._open("POST", path, options, body=request, unlimited=True) as response:
            async for event in install.ainstall_events(_core.aread_lines(response.aiter_lines())):
                yield event

    async def reload_adapters(self, **options: Unpack[CallOptions]) -> AdaptersReloadResponse:
        """``POST /v1/adapters/reload``: loads the daemon's adapters folder again; the adapters
        it holds now, and why each other file was skipped. ``NotConfiguredError`` (409) when
        the daemon runs without an adapters folder."""
        return _core.parse(
            AdaptersReloadResponse, await self._request("POST", "/v1/adapters/reload", options)
        )

    # -- sessions ---------------------------------------------------------------------------

    async def list_sessions(
        self, *, scope: SessionScope | None = None, **options: Unpack[CallOptions]
    ) -> list[SessionInfo]:
        """``GET /v1/sessions``: every session this daemon drives, live or ended; with
        ``scope="fleet"``, every session of the database it shares with other daemons, with its
        ``owner`` and ``owner_alive``. ``scope`` is sent only when given (the daemon's default:
        ``"daemon"``)."""
        params = _core.query(scope=scope)
        answer = await self._request("GET", "/v1/sessions", options, params=params)
        return _core.parse(SessionListResponse, answer).sessions

    async def create_session(
        self,
        id: str,
        request: CreateSessionRequest | None = None,
        /,
        *,
        timeout: float | None = None,
        max_retries: int | None = None,
        **fields: Any,
    ) -> AsyncSession:
        """``POST /v1/sessions/{id}``: creates a session and starts its agent.

        Give the body as keyword arguments (``agent="mock"``, ``agent_mode=``,
        ``permission_mode=``, ``model=``, ``title=``, ``env=``, ``mcp=``, ``skills=``...) or as a
        ``CreateSessionRequest``. The daemon's answer is ``session.created`` (``healthy`` False
        with an ``error`` when the agent failed to start; the session then exists and has ended).
        Creating may install the agent first: no time limit unless the call gives ``timeout``.
        """
        body = request if request is not None else CreateSessionRequest.model_validate(fields)
        options = _core.call_options(timeout, max_retries)
        answer = await self._request("POST", f"/v1/sessions/{seg(id)}", options, body=body, unlimited=True)
        return AsyncSession(self, id, created=_core.parse(CreateSessionResponse, answer))

    async def get_session(self, id: str, **options: Unpack[CallOptions]) -> AsyncSession:
        """``GET /v1/sessions/{id}``: the session, with its current ``info``;
        ``SessionNotFoundError`` when there is none."""
        return AsyncSession(self, id, info=await self._session_info(id, options))

    def session(self, id: str) -> AsyncSession:
        """A handle on a session by id, without a request (for a session known to exist)."""
        return AsyncSession(self, id)

    async def _session_info(self, id: str, options: CallOptions) -> SessionInfo:
        return _core.parse(SessionInfo, await self._request("GET", f"/v1/sessions/{seg(id)}", options))

    # -- moving sessions between daemons ----------------------------------------------------

    async def export_session(
        self,
        id: str,
        *,
        chunk_size: int = 65536,
        on_native_lost: Callable[[str], None] | None = None,
        **options: Unpack[CallOptions],
    ) -> AsyncIterator[bytes]:
        """``GET /v1/sessions/{id}/export``: the session's archive in chunks, streamed, as
        ``Agentplex.export_session``."""
        limit = _core.call_limit(options, self._timeout)
        async with self._open(
            "GET", moves.export_path(id), options, headers=moves.EXPORT_HEADERS, read_timeout=limit
        ) as response:
            moves.native_lost(response, on_native_lost)
            async for chunk in moves.achunks(response.aiter_bytes(chunk_size), id):
                yield chunk

    async def import_session(
        self,
        id: str,
        archive: AsyncFsBody,
        *,
        directory: str | None = None,
        env: Mapping[str, str] | None = None,
        **options: Unpack[CallOptions],
    ) -> ImportSessionResponse:
        """``POST /v1/sessions/{id}/import``: restores a session from an archive (bytes, or an
        iterable or async iterable of chunks, streamed), as ``Agentplex.import_session``."""
        answer = await self._request(
            "POST",
            moves.import_path(id),
            options,
            params=moves.import_params(directory),
            content=_core.abyte_chunks(archive),
            headers=moves.import_headers(env),
        )
        return _core.parse(ImportSessionResponse, answer)

    async def move_session(
        self,
        id: str,
        to: AsyncAgentplex,
        *,
        to_id: str | None = None,
        directory: str | None = None,
        env: Mapping[str, str] | None = None,
        **options: Unpack[CallOptions],
    ) -> ImportSessionResponse:
        """Moves session ``id`` to the daemon of ``to`` (as ``to_id``, by default ``id``), the
        export streamed into the import, as ``Agentplex.move_session``."""
        moves.import_headers(env)  # what cannot be sent is refused before the export starts
        limit = _core.call_limit(options, self._timeout)
        async with self._open(
            "GET", moves.export_path(id), options, headers=moves.EXPORT_HEADERS, read_timeout=limit
        ) as response:
            archive = moves.achunks(response.aiter_bytes(), id)
            target = id if to_id is None else to_id
            return await to.import_session(target, archive, directory=directory, env=env, **options)

    # -- files (/v1/fs/*) -------------------------------------------------------------------

    async def list_fs_entries(
        self, path: str | None = None, *, session_id: str | None = None, **options: Unpack[CallOptions]
    ) -> list[FsEntry]:
        """``GET /v1/fs/entries``: a directory's entries, sorted by name (default: the session's
        directory, or the daemon user's home)."""
        params = FsEntriesQuery(path=path, session_id=session_id).to_wire()
        return _core.parse_list(FsEntry, await self._request("GET", "/v1/fs/entries", options, params=params))

    async def read_fs_file(
        self, path: str, *, session_id: str | None = None, **options: Unpack[CallOptions]
    ) -> bytes:
        """``GET /v1/fs/file``: a file's bytes, read whole (``read_fs_file_stream`` for large files)."""
        params = FsPathQuery(path=path, session_id=session_id).to_wire()
        return (await self._request("GET", "/v1/fs/file", options, params=params)).content

    async def read_fs_file_stream(
        self,
        path: str,
        *,
        session_id: str | None = None,
        chunk_size: int = 65536,
        **options: Unpack[CallOptions],
    ) -> AsyncIterator[bytes]:
        """``GET /v1/fs/file``: a file's bytes in chunks, streamed (the call's time limit bounds
        the wait for each chunk)."""
        params = FsPathQuery(path=path, session_id=session_id).to_wire()
        limit = _core.call_limit(options, self._timeout)
        async with self._open(
            "GET", "/v1/fs/file", options, params=params, headers={"accept": "*/*"}, read_timeout=limit
        ) as response:
            try:
                async for chunk in response.aiter_bytes(chunk_size):
                    yield chunk
            except httpx.HTTPError as error:
                raise _core.network_error(error, "reading the file") from error

    iter_fs_file = read_fs_file_stream
    """Deprecated: the 0.2 name of ``read_fs_file_stream``."""

    async def write_fs_file(
        self, path: str, body: AsyncFsBody, *, session_id: str | None = None, **options: Unpack[CallOptions]
    ) -> FsWriteResponse:
        """``PUT /v1/fs/file``: writes a file (and its parents), replaced once the whole body arrived."""
        params = FsPathQuery(path=path, session_id=session_id).to_wire()
        answer = await self._request(
            "PUT",
            "/v1/fs/file",
            options,
            params=params,
            content=_core.abyte_chunks(body),
            headers={"content-type": "application/octet-stream"},
        )
        return _core.parse(FsWriteResponse, answer)

    async def stat_fs(
        self, path: str, *, session_id: str | None = None, **options: Unpack[CallOptions]
    ) -> FsStat:
        """``GET /v1/fs/stat``: a path's type, size and modification time."""
        params = FsPathQuery(path=path, session_id=session_id).to_wire()
        return _core.parse(FsStat, await self._request("GET", "/v1/fs/stat", options, params=params))

    async def mkdir_fs(
        self, path: str, *, session_id: str | None = None, **options: Unpack[CallOptions]
    ) -> FsActionResponse:
        """``POST /v1/fs/mkdir``: creates a directory and its parents (an existing one is fine)."""
        params = FsPathQuery(path=path, session_id=session_id).to_wire()
        return _core.parse(
            FsActionResponse, await self._request("POST", "/v1/fs/mkdir", options, params=params)
        )

    async def move_fs(
        self,
        from_: str,
        to: str,
        *,
        overwrite: bool | None = None,
        session_id: str | None = None,
        **options: Unpack[CallOptions],
    ) -> FsMoveResponse:
        """``POST /v1/fs/move``: moves or renames ``from_`` to ``to``; ``PathConflictError`` when
        ``to`` exists, unless ``overwrite``."""
        params = FsSessionQuery(session_id=session_id).to_wire()
        body = FsMoveRequest(from_=from_, to=to, overwrite=overwrite)
        answer = await self._request("POST", "/v1/fs/move", options, params=params, body=body)
        return _core.parse(FsMoveResponse, answer)

    async def delete_fs_entry(
        self,
        path: str,
        *,
        session_id: str | None = None,
        recursive: bool | None = None,
        **options: Unpack[CallOptions],
    ) -> FsActionResponse:
        """``DELETE /v1/fs/entry``: deletes a file, link or directory (a non-empty one only
        with ``recursive``)."""
        params = FsDeleteQuery(path=path, session_id=session_id, recursive=recursive).to_wire()
        return _core.parse(
            FsActionResponse, await self._request("DELETE", "/v1/fs/entry", options, params=params)
        )

    async def upload_fs_batch(
        self,
        body: AsyncFsBody,
        *,
        path: str | None = None,
        session_id: str | None = None,
        **options: Unpack[CallOptions],
    ) -> FsUploadBatchResponse:
        """``POST /v1/fs/upload-batch``: unpacks a tar archive (plain or gzip) under ``path``;
        all or nothing."""
        params = FsUploadBatchQuery(path=path, session_id=session_id).to_wire()
        answer = await self._request(
            "POST",
            "/v1/fs/upload-batch",
            options,
            params=params,
            content=_core.abyte_chunks(body),
            headers={"content-type": "application/x-tar"},
        )
        return _core.parse(FsUploadBatchResponse, answer)


AsyncClient = AsyncAgentplex
"""Deprecated: the 0.2 name of ``AsyncAgentplex``."""
