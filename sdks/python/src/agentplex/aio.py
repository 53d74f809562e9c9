"""``AsyncAgentplex``: the asyncio client of the daemon's ``/v1`` routes, with the methods of
``Agentplex``, awaited (``AsyncClient``, its 0.2 name, is a deprecated alias). Session routes
live on ``AsyncSession`` (``agentplex.aio_session``). To abort a call, cancel its task."""

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
    Sequence,
)
from types import TracebackType
from typing import Any

import httpx
from typing_extensions import Unpack

from . import _core, acp, desktop, install, moves, processes
from ._core import CallOptions, seg
from .aio_session import AsyncSession
from .errors import AgentplexError
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
    DesktopActionResponse,
    DesktopClipboardResponse,
    DesktopClipboardWriteRequest,
    DesktopDisplayInfoResponse,
    DesktopKeyboardPressRequest,
    DesktopKeyboardTypeRequest,
    DesktopKeyModifiers,
    DesktopKeyRequest,
    DesktopLaunchRequest,
    DesktopLaunchResponse,
    DesktopMouseButton,
    DesktopMouseButtonRequest,
    DesktopMouseClickRequest,
    DesktopMouseDragRequest,
    DesktopMouseMoveRequest,
    DesktopMousePositionResponse,
    DesktopMouseScrollRequest,
    DesktopOpenRequest,
    DesktopOpenResponse,
    DesktopRecordingInfo,
    DesktopRecordingListResponse,
    DesktopRecordingStartRequest,
    DesktopScreenshotFormat,
    DesktopSelection,
    DesktopStartRequest,
    DesktopStatusResponse,
    DesktopWindowInfo,
    DesktopWindowListResponse,
    DesktopWindowMoveRequest,
    DesktopWindowResizeRequest,
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
    ProcessConfig,
    ProcessCreateRequest,
    ProcessInfo,
    ProcessInputRequest,
    ProcessInputResponse,
    ProcessListResponse,
    ProcessLogsResponse,
    ProcessLogsStream,
    ProcessRunRequest,
    ProcessRunResponse,
    ProcessTerminalResizeRequest,
    RegistryListResponse,
    SessionInfo,
    SessionListResponse,
    SessionScope,
)
from .terminal import AsyncProcessTerminal

AsyncFsBody = bytes | str | Iterable[bytes] | AsyncIterable[bytes]
"""A raw body of ``AsyncAgentplex`` (``write_fs_file``, ``upload_fs_batch``,
``import_session``): bytes, a string (as UTF-8), or an iterable or async iterable of byte
chunks (sent chunked as it is read, never held whole)."""


class AsyncAgentplex:
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

    # -- processes (/v1/processes) ------------------------------------------------------------

    async def get_process_config(self, **options: Unpack[CallOptions]) -> ProcessConfig:
        """``GET /v1/processes/config``: the daemon's process limits (set by its flags)."""
        return _core.parse(ProcessConfig, await self._request("GET", "/v1/processes/config", options))

    async def run_process(
        self,
        request: ProcessRunRequest | None = None,
        /,
        *,
        timeout: float | None = None,
        max_retries: int | None = None,
        **fields: Any,
    ) -> ProcessRunResponse:
        """``POST /v1/processes/run``: runs a command to its end; its exit status and output.

        Give the body as keyword arguments (``command="sh"``, ``args=[...]``, ``cwd=``,
        ``env=``, ``stdin=``, ``timeout_ms=``, ``max_output_bytes=``...) or as a
        ``ProcessRunRequest``. The daemon kills the run at ``timeout_ms`` (30 s when absent), so
        the call has no time limit of its own unless it gives ``timeout``.
        """
        body = request if request is not None else ProcessRunRequest.model_validate(fields)
        options = _core.call_options(timeout, max_retries)
        answer = await self._request("POST", "/v1/processes/run", options, body=body, unlimited=True)
        return _core.parse(ProcessRunResponse, answer)

    async def create_process(
        self,
        request: ProcessCreateRequest | None = None,
        /,
        *,
        timeout: float | None = None,
        max_retries: int | None = None,
        **fields: Any,
    ) -> ProcessInfo:
        """``POST /v1/processes``: starts a managed process (``tty=True`` for a terminal,
        ``interactive=True`` to keep its stdin open), as keyword arguments or a
        ``ProcessCreateRequest``."""
        body = request if request is not None else ProcessCreateRequest.model_validate(fields)
        options = _core.call_options(timeout, max_retries)
        return _core.parse(ProcessInfo, await self._request("POST", "/v1/processes", options, body=body))

    async def list_processes(self, **options: Unpack[CallOptions]) -> list[ProcessInfo]:
        """``GET /v1/processes``: every process not deleted, oldest first."""
        return _core.parse(
            ProcessListResponse, await self._request("GET", "/v1/processes", options)
        ).processes

    async def get_process(self, id: str, **options: Unpack[CallOptions]) -> ProcessInfo:
        """``GET /v1/processes/{id}``; ``ProcessNotFoundError`` for an unknown id."""
        return _core.parse(ProcessInfo, await self._request("GET", processes.path(id), options))

    async def stop_process(
        self, id: str, *, wait_ms: int | None = None, **options: Unpack[CallOptions]
    ) -> ProcessInfo:
        """``POST /v1/processes/{id}/stop``: SIGTERM to its process group, SIGKILL after the
        daemon's grace; with ``wait_ms``, answers once it exited or ``wait_ms`` passed."""
        params = processes.signal_params(wait_ms)
        answer = await self._request("POST", processes.path(id, "/stop"), options, params=params)
        return _core.parse(ProcessInfo, answer)

    async def kill_process(
        self, id: str, *, wait_ms: int | None = None, **options: Unpack[CallOptions]
    ) -> ProcessInfo:
        """``POST /v1/processes/{id}/kill``: SIGKILL to its process group (``wait_ms`` as for
        ``stop_process``)."""
        params = processes.signal_params(wait_ms)
        answer = await self._request("POST", processes.path(id, "/kill"), options, params=params)
        return _core.parse(ProcessInfo, answer)

    async def delete_process(self, id: str, **options: Unpack[CallOptions]) -> None:
        """``DELETE /v1/processes/{id}``: forgets an exited process and its logs
        (``ProcessConflictError`` while it runs)."""
        await self._request("DELETE", processes.path(id), options)

    async def send_process_input(
        self, id: str, data: str | bytes | ProcessInputRequest, **options: Unpack[CallOptions]
    ) -> ProcessInputResponse:
        """``POST /v1/processes/{id}/input``: writes to its stdin (or terminal): a string as
        UTF-8, bytes as they are, or the request body. ``ProcessConflictError`` when its stdin
        is not open, ``PayloadTooLargeError`` past ``--process-input-bytes``."""
        body = processes.input_request(data)
        answer = await self._request("POST", processes.path(id, "/input"), options, body=body)
        return _core.parse(ProcessInputResponse, answer)

    async def get_process_logs(
        self,
        id: str,
        *,
        stream: ProcessLogsStream | None = None,
        tail: int | None = None,
        since: int | None = None,
        offset: int | None = None,
        **options: Unpack[CallOptions],
    ) -> ProcessLogsResponse:
        """``GET /v1/processes/{id}/logs``: the output its ring buffer holds, by entry and byte
        offset (``decode_process_log_data(entry)`` for an entry's bytes)."""
        params = processes.logs_params(stream, tail, since, offset)
        answer = await self._request("GET", processes.path(id, "/logs"), options, params=params)
        return _core.parse(ProcessLogsResponse, answer)

    async def follow_process_logs(
        self,
        id: str,
        *,
        stream: ProcessLogsStream | None = None,
        since: int | None = None,
        offset: int | None = None,
        max_retries: int = 10,
        retry_delay: float = 0.25,
        idle_timeout: float = _core.DEFAULT_IDLE_TIMEOUT,
        timeout: float | None = None,
    ) -> AsyncIterator[processes.ProcessLogEvent]:
        """``GET /v1/processes/{id}/logs?follow=true``: the entries held that match (from
        ``offset`` or after ``since``, else from the oldest held), then new ones as they are read
        (``ProcessLogEntry``), ``ProcessLogsMissed`` when output was
        dropped before it was sent, and the ``ProcessInfo`` of its exit, last.

        A dropped connection is reopened with ``Last-Event-ID`` = the last entry yielded, so
        none is repeated or skipped; ``max_retries`` failed reconnects in a row raise
        ``StreamError``; problem answers (404...) are raised at once. ``timeout`` bounds
        opening each connection (the client's when None); ``idle_timeout`` (0: none) a silence.
        """
        follower = processes.LogFollower(id, stream, since, offset)
        options = _core.call_options(timeout, None)
        failures = 0
        delay = 0.0
        last_error: BaseException | None = None
        while True:
            if failures > max_retries:
                raise follower.failed(failures, last_error)
            if delay > 0:
                await asyncio.sleep(delay)
            alive = False
            try:
                async with self._open(
                    "GET",
                    follower.path,
                    options,
                    params=follower.params(),
                    headers=follower.headers(),
                    read_timeout=idle_timeout,
                ) as response:
                    decoder = _core.SseDecoder()
                    async for line in _core.aread_lines(response.aiter_lines()):
                        alive = True
                        failures = 0
                        message = decoder.message(line)
                        event = follower.accept(*message) if message is not None else None
                        if event is None:
                            continue
                        yield event
                        if isinstance(event, ProcessInfo):
                            return
            except AgentplexError as error:
                if not _core.retryable(error):
                    raise
                last_error = error
            if alive:
                delay = 0.0
            else:
                failures += 1
                delay = _core.backoff(retry_delay, failures)

    async def resize_process_terminal(
        self, id: str, cols: int, rows: int, **options: Unpack[CallOptions]
    ) -> ProcessTerminalResizeRequest:
        """``POST /v1/processes/{id}/terminal/resize``: sets a terminal's size; the size set."""
        body = ProcessTerminalResizeRequest(cols=cols, rows=rows)
        answer = await self._request("POST", processes.path(id, "/terminal/resize"), options, body=body)
        return _core.parse(ProcessTerminalResizeRequest, answer)

    def build_desktop_stream_web_socket_url(
        self,
        *,
        access_token: str | None = None,
        fps: int | None = None,
        quality: int | None = None,
        scale: float | None = None,
    ) -> str:
        """The ``ws:`` (or ``wss:``) URL of the desktop's live view (``GET
        /v1/desktop/stream/ws``): binary JPEG frames of the screen after a ``ready`` frame, JSON
        input frames in. The token (``access_token``, else the client's) is its
        ``access_token`` query parameter, for a client that cannot send headers (a browser)."""
        return desktop.stream_url(self.base_url, access_token or self.token, fps, quality, scale)

    def build_process_terminal_web_socket_url(self, id: str, *, access_token: str | None = None) -> str:
        """The ``ws:`` (or ``wss:``) URL of a process's terminal, with the token
        (``access_token``, else the client's) as the ``access_token`` query parameter, for a
        client that cannot send headers (a browser's WebSocket)."""
        return processes.terminal_url(self.base_url, id, access_token or self.token)

    async def connect_process_terminal(
        self, id: str, *, timeout: float | None = None
    ) -> AsyncProcessTerminal:
        """Opens the WebSocket of a process's terminal (``GET .../terminal/ws``) and returns once
        the daemon is ready (within ``timeout``, the client's when None; 0: no limit): read its
        output (the scrollback first), send keystrokes and resizes. ``ProcessNotFoundError``,
        ``ProcessConflictError`` (it has no terminal), ``TokenInvalidError`` when the daemon
        refuses the socket, ``TimeoutError`` past the limit."""
        url = processes.terminal_url(self.base_url, id)
        headers = processes.handshake_headers(self._headers)
        limit = _core.call_limit(_core.call_options(timeout, None), self._timeout)
        return await AsyncProcessTerminal.open(url, headers, id, limit)

    # -- the desktop (/v1/desktop/*) ----------------------------------------------------------

    async def get_desktop_status(self, **options: Unpack[CallOptions]) -> DesktopStatusResponse:
        """``GET /v1/desktop/status``: what the desktop is doing (``state``), its display,
        programs and windows, and the programs it needs that are not installed
        (``missing_dependencies``, with the ``install_command`` that installs them)."""
        answer = await self._request("GET", "/v1/desktop/status", options)
        return _core.parse(DesktopStatusResponse, answer)

    async def start_desktop(
        self,
        request: DesktopStartRequest | None = None,
        /,
        *,
        timeout: float | None = None,
        max_retries: int | None = None,
        **fields: Any,
    ) -> DesktopStatusResponse:
        """``POST /v1/desktop/start``: starts the desktop (Xvfb at the size asked, a session bus,
        openbox) and returns its status once it runs. A running desktop is left as it is.

        Give the body as keyword arguments (``width=``, ``height=``, ``dpi=``,
        ``display_num=``...; 1440x900 at 96 DPI when absent) or as a ``DesktopStartRequest``.
        ``DesktopUnavailableError`` (501) when Xvfb or openbox is not installed,
        ``DesktopFailedError`` (503) when they did not come up, ``DesktopConflictError`` (409)
        while a start or stop is under way.
        """
        body = request if request is not None else DesktopStartRequest.model_validate(fields)
        options = _core.call_options(timeout, max_retries)
        answer = await self._request("POST", "/v1/desktop/start", options, body=body)
        return _core.parse(DesktopStatusResponse, answer)

    async def stop_desktop(self, **options: Unpack[CallOptions]) -> DesktopStatusResponse:
        """``POST /v1/desktop/stop``: stops the desktop, its recording and its programs; its
        status once stopped."""
        answer = await self._request("POST", "/v1/desktop/stop", options)
        return _core.parse(DesktopStatusResponse, answer)

    async def get_desktop_display_info(self, **options: Unpack[CallOptions]) -> DesktopDisplayInfoResponse:
        """``GET /v1/desktop/display/info``: the display's name and size. Every route of the
        running desktop (this one and those below) raises ``DesktopNotRunningError`` (409) when
        it is not started."""
        answer = await self._request("GET", "/v1/desktop/display/info", options)
        return _core.parse(DesktopDisplayInfoResponse, answer)

    async def take_desktop_screenshot(
        self,
        *,
        format: DesktopScreenshotFormat | None = None,
        quality: int | None = None,
        scale: float | None = None,
        show_cursor: bool | None = None,
        **options: Unpack[CallOptions],
    ) -> bytes:
        """``GET /v1/desktop/screenshot``: the whole screen as image bytes (``format``: ``png``,
        the default, ``jpeg`` at ``quality``, or ``webp``; ``scale`` shrinks it; ``show_cursor``
        draws the pointer). ``InvalidRequestError`` for a ``quality`` or ``scale`` out of range."""
        params = desktop.screenshot_params(format, quality, scale, show_cursor)
        answer = await self._request(
            "GET", "/v1/desktop/screenshot", options, params=params, headers=desktop.IMAGE_HEADERS
        )
        return answer.content

    async def take_desktop_region_screenshot(
        self,
        x: int,
        y: int,
        width: int,
        height: int,
        *,
        format: DesktopScreenshotFormat | None = None,
        quality: int | None = None,
        scale: float | None = None,
        show_cursor: bool | None = None,
        **options: Unpack[CallOptions],
    ) -> bytes:
        """``GET /v1/desktop/screenshot/region``: a region of the screen as image bytes, with the
        options of ``take_desktop_screenshot``. ``InvalidRequestError`` for a region that is not
        on the screen."""
        region = {"x": x, "y": y, "width": width, "height": height}
        params = desktop.screenshot_params(format, quality, scale, show_cursor, **region)
        answer = await self._request(
            "GET", "/v1/desktop/screenshot/region", options, params=params, headers=desktop.IMAGE_HEADERS
        )
        return answer.content

    async def get_desktop_mouse_position(
        self, **options: Unpack[CallOptions]
    ) -> DesktopMousePositionResponse:
        """``GET /v1/desktop/mouse/position``: where the pointer is, and the window under it."""
        answer = await self._request("GET", "/v1/desktop/mouse/position", options)
        return _core.parse(DesktopMousePositionResponse, answer)

    async def move_desktop_mouse(
        self, x: int, y: int, **options: Unpack[CallOptions]
    ) -> DesktopMousePositionResponse:
        """``POST /v1/desktop/mouse/move``: moves the pointer; where it is then. A point off the
        screen raises ``InvalidRequestError``, here and in the mouse methods below."""
        body = DesktopMouseMoveRequest(x=x, y=y)
        answer = await self._request("POST", "/v1/desktop/mouse/move", options, body=body)
        return _core.parse(DesktopMousePositionResponse, answer)

    async def click_desktop(
        self,
        x: int,
        y: int,
        *,
        button: DesktopMouseButton | None = None,
        click_count: int | None = None,
        **options: Unpack[CallOptions],
    ) -> DesktopMousePositionResponse:
        """``POST /v1/desktop/mouse/click``: moves the pointer to ``x``, ``y`` and clicks
        (``click_count`` 1 to 3, ``button`` ``left`` by default)."""
        body = DesktopMouseClickRequest(x=x, y=y, button=button, click_count=click_count)
        answer = await self._request("POST", "/v1/desktop/mouse/click", options, body=body)
        return _core.parse(DesktopMousePositionResponse, answer)

    async def mouse_down_desktop(
        self,
        x: int | None = None,
        y: int | None = None,
        *,
        button: DesktopMouseButton | None = None,
        **options: Unpack[CallOptions],
    ) -> DesktopMousePositionResponse:
        """``POST /v1/desktop/mouse/down``: presses a button (at ``x``, ``y`` when given) and
        holds it."""
        body = DesktopMouseButtonRequest(x=x, y=y, button=button)
        answer = await self._request("POST", "/v1/desktop/mouse/down", options, body=body)
        return _core.parse(DesktopMousePositionResponse, answer)

    async def mouse_up_desktop(
        self,
        x: int | None = None,
        y: int | None = None,
        *,
        button: DesktopMouseButton | None = None,
        **options: Unpack[CallOptions],
    ) -> DesktopMousePositionResponse:
        """``POST /v1/desktop/mouse/up``: releases a button (at ``x``, ``y`` when given)."""
        body = DesktopMouseButtonRequest(x=x, y=y, button=button)
        answer = await self._request("POST", "/v1/desktop/mouse/up", options, body=body)
        return _core.parse(DesktopMousePositionResponse, answer)

    async def drag_desktop_mouse(
        self,
        start_x: int,
        start_y: int,
        end_x: int,
        end_y: int,
        *,
        button: DesktopMouseButton | None = None,
        **options: Unpack[CallOptions],
    ) -> DesktopMousePositionResponse:
        """``POST /v1/desktop/mouse/drag``: presses at the start, moves to the end in steps,
        releases there."""
        body = DesktopMouseDragRequest(
            start_x=start_x, start_y=start_y, end_x=end_x, end_y=end_y, button=button
        )
        answer = await self._request("POST", "/v1/desktop/mouse/drag", options, body=body)
        return _core.parse(DesktopMousePositionResponse, answer)

    async def scroll_desktop(
        self,
        x: int,
        y: int,
        *,
        delta_x: int | None = None,
        delta_y: int | None = None,
        **options: Unpack[CallOptions],
    ) -> DesktopMousePositionResponse:
        """``POST /v1/desktop/mouse/scroll``: turns the wheel at ``x``, ``y`` (``delta_y`` > 0
        scrolls down, ``delta_x`` > 0 right)."""
        body = DesktopMouseScrollRequest(x=x, y=y, delta_x=delta_x, delta_y=delta_y)
        answer = await self._request("POST", "/v1/desktop/mouse/scroll", options, body=body)
        return _core.parse(DesktopMousePositionResponse, answer)

    async def type_desktop_text(
        self, text: str, *, delay_ms: int | None = None, **options: Unpack[CallOptions]
    ) -> DesktopActionResponse:
        """``POST /v1/desktop/keyboard/type``: types ``text`` (any Unicode) into the focused
        window, ``delay_ms`` apart. ``InvalidRequestError`` past 10 000 characters or a
        ``delay_ms`` over 1000."""
        body = DesktopKeyboardTypeRequest(text=text, delay_ms=delay_ms)
        answer = await self._request("POST", "/v1/desktop/keyboard/type", options, body=body)
        return _core.parse(DesktopActionResponse, answer)

    async def press_desktop_key(
        self, key: str, *, modifiers: DesktopKeyModifiers | None = None, **options: Unpack[CallOptions]
    ) -> DesktopActionResponse:
        """``POST /v1/desktop/keyboard/press``: presses and releases a key (an X keysym name such
        as ``Return``, or a character) or a chord (``ctrl+shift+t``), with ``modifiers`` held.
        ``InvalidRequestError`` for a name that names no key."""
        body = DesktopKeyboardPressRequest(key=key, modifiers=modifiers)
        answer = await self._request("POST", "/v1/desktop/keyboard/press", options, body=body)
        return _core.parse(DesktopActionResponse, answer)

    async def key_down_desktop(self, key: str, **options: Unpack[CallOptions]) -> DesktopActionResponse:
        """``POST /v1/desktop/keyboard/down``: presses a key and holds it (until
        ``key_up_desktop``)."""
        body = DesktopKeyRequest(key=key)
        answer = await self._request("POST", "/v1/desktop/keyboard/down", options, body=body)
        return _core.parse(DesktopActionResponse, answer)

    async def key_up_desktop(self, key: str, **options: Unpack[CallOptions]) -> DesktopActionResponse:
        """``POST /v1/desktop/keyboard/up``: releases a key."""
        body = DesktopKeyRequest(key=key)
        answer = await self._request("POST", "/v1/desktop/keyboard/up", options, body=body)
        return _core.parse(DesktopActionResponse, answer)

    async def get_desktop_clipboard(
        self, *, selection: DesktopSelection | None = None, **options: Unpack[CallOptions]
    ) -> DesktopClipboardResponse:
        """``GET /v1/desktop/clipboard``: the clipboard's text (``selection="primary"``: the
        primary selection's)."""
        params = _core.query(selection=selection)
        answer = await self._request("GET", "/v1/desktop/clipboard", options, params=params)
        return _core.parse(DesktopClipboardResponse, answer)

    async def set_desktop_clipboard(
        self, text: str, *, selection: DesktopSelection | None = None, **options: Unpack[CallOptions]
    ) -> DesktopActionResponse:
        """``POST /v1/desktop/clipboard``: puts ``text`` on the clipboard (or in the primary
        selection) for programs on the desktop to paste."""
        body = DesktopClipboardWriteRequest(text=text, selection=selection)
        answer = await self._request("POST", "/v1/desktop/clipboard", options, body=body)
        return _core.parse(DesktopActionResponse, answer)

    async def list_desktop_windows(self, **options: Unpack[CallOptions]) -> list[DesktopWindowInfo]:
        """``GET /v1/desktop/windows``: the visible windows, bottom to top."""
        answer = await self._request("GET", "/v1/desktop/windows", options)
        return _core.parse(DesktopWindowListResponse, answer).windows

    async def get_desktop_focused_window(self, **options: Unpack[CallOptions]) -> DesktopWindowInfo:
        """``GET /v1/desktop/windows/focused``: the window with the focus;
        ``WindowNotFoundError`` when none has it."""
        answer = await self._request("GET", "/v1/desktop/windows/focused", options)
        return _core.parse(DesktopWindowInfo, answer)

    async def focus_desktop_window(self, id: str, **options: Unpack[CallOptions]) -> DesktopWindowInfo:
        """``POST /v1/desktop/windows/{id}/focus``: gives a window the focus and raises it; the
        window after the change. ``WindowNotFoundError`` for an unknown id, here and below."""
        answer = await self._request("POST", desktop.window_path(id, "/focus"), options)
        return _core.parse(DesktopWindowInfo, answer)

    async def move_desktop_window(
        self, id: str, x: int, y: int, **options: Unpack[CallOptions]
    ) -> DesktopWindowInfo:
        """``POST /v1/desktop/windows/{id}/move``: moves a window's contents to ``x``, ``y``; the
        window after the change."""
        body = DesktopWindowMoveRequest(x=x, y=y)
        answer = await self._request("POST", desktop.window_path(id, "/move"), options, body=body)
        return _core.parse(DesktopWindowInfo, answer)

    async def resize_desktop_window(
        self, id: str, width: int, height: int, **options: Unpack[CallOptions]
    ) -> DesktopWindowInfo:
        """``POST /v1/desktop/windows/{id}/resize``: resizes a window's contents; the window
        after the change."""
        body = DesktopWindowResizeRequest(width=width, height=height)
        answer = await self._request("POST", desktop.window_path(id, "/resize"), options, body=body)
        return _core.parse(DesktopWindowInfo, answer)

    async def close_desktop_window(self, id: str, **options: Unpack[CallOptions]) -> DesktopActionResponse:
        """``POST /v1/desktop/windows/{id}/close``: asks a window to close, as its close button
        would (the program may ask first)."""
        answer = await self._request("POST", desktop.window_path(id, "/close"), options)
        return _core.parse(DesktopActionResponse, answer)

    async def launch_desktop_app(
        self,
        app: str,
        args: Sequence[str] | None = None,
        *,
        wait: bool | None = None,
        **options: Unpack[CallOptions],
    ) -> DesktopLaunchResponse:
        """``POST /v1/desktop/launch``: starts a program on the desktop as a managed process
        (its ``process_id`` works with ``get_process``, ``stop_process``...); with ``wait``,
        waits up to 10 s for its first window (``window_id``). ``SpawnFailedError`` when it
        cannot start."""
        body = DesktopLaunchRequest(app=app, args=list(args) if args is not None else None, wait=wait)
        answer = await self._request("POST", "/v1/desktop/launch", options, body=body)
        return _core.parse(DesktopLaunchResponse, answer)

    async def open_desktop_target(self, target: str, **options: Unpack[CallOptions]) -> DesktopOpenResponse:
        """``POST /v1/desktop/open``: opens a file or URL with its default program
        (``xdg-open``), as a managed process. ``DesktopUnavailableError`` when ``xdg-open`` is
        not installed."""
        body = DesktopOpenRequest(target=target)
        answer = await self._request("POST", "/v1/desktop/open", options, body=body)
        return _core.parse(DesktopOpenResponse, answer)

    async def start_desktop_recording(
        self, *, fps: int | None = None, **options: Unpack[CallOptions]
    ) -> DesktopRecordingInfo:
        """``POST /v1/desktop/recording/start``: starts recording the screen to an MP4 file
        (``fps`` 1 to 60, 15 when absent). ``DesktopConflictError`` while another recording
        runs, ``DesktopUnavailableError`` when ffmpeg is not installed."""
        body = DesktopRecordingStartRequest(fps=fps)
        answer = await self._request("POST", "/v1/desktop/recording/start", options, body=body)
        return _core.parse(DesktopRecordingInfo, answer)

    async def stop_desktop_recording(self, **options: Unpack[CallOptions]) -> DesktopRecordingInfo:
        """``POST /v1/desktop/recording/stop``: stops the running recording; its file is complete
        when this returns. ``DesktopConflictError`` when none runs."""
        answer = await self._request("POST", "/v1/desktop/recording/stop", options)
        return _core.parse(DesktopRecordingInfo, answer)

    async def list_desktop_recordings(self, **options: Unpack[CallOptions]) -> list[DesktopRecordingInfo]:
        """``GET /v1/desktop/recordings``: the recordings, oldest first."""
        answer = await self._request("GET", "/v1/desktop/recordings", options)
        return _core.parse(DesktopRecordingListResponse, answer).recordings

    async def get_desktop_recording(self, id: str, **options: Unpack[CallOptions]) -> DesktopRecordingInfo:
        """``GET /v1/desktop/recordings/{id}``; ``RecordingNotFoundError`` for an unknown id."""
        answer = await self._request("GET", desktop.recording_path(id), options)
        return _core.parse(DesktopRecordingInfo, answer)

    async def delete_desktop_recording(self, id: str, **options: Unpack[CallOptions]) -> None:
        """``DELETE /v1/desktop/recordings/{id}``: deletes a recording that has ended, and its
        file (``DesktopConflictError`` while it records)."""
        await self._request("DELETE", desktop.recording_path(id), options)

    async def download_desktop_recording(self, id: str, **options: Unpack[CallOptions]) -> bytes:
        """``GET /v1/desktop/recordings/{id}/download``: a recording's MP4 file, read whole.
        ``DesktopConflictError`` while it records, ``RecordingNotFoundError`` for an unknown id."""
        path = desktop.recording_path(id, "/download")
        answer = await self._request("GET", path, options, headers=desktop.MP4_HEADERS)
        return answer.content


AsyncClient = AsyncAgentplex
"""Deprecated: the 0.2 name of ``AsyncAgentplex``."""
