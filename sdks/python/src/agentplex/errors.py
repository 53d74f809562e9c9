"""Errors: one exception class per problem type of the daemon, and the SDK's own, with the
names of the TypeScript SDK's (sdks/surface.json lists them).

Every failure the SDK reports is an :class:`AgentplexError` (``SandboxAgentError``, its 0.2
name, is a deprecated alias). The daemon's RFC 7807 problem documents
(``urn:sandbox-agent:error:<code>``, docs/api.md "Errors") map onto the subclass of their code,
field for field; fields the document has beyond the schema are in ``extras``.
"""

from __future__ import annotations

import builtins
import json
from typing import Any

from pydantic import ValidationError

from .generated.models import ProblemDetails

ERROR_TYPE_PREFIX = "urn:sandbox-agent:error:"
"""Prefix of every problem ``type``: ``urn:sandbox-agent:error:<code>``."""

_TITLES = {
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    405: "Method Not Allowed",
    409: "Conflict",
    413: "Payload Too Large",
    415: "Unsupported Media Type",
    500: "Internal Server Error",
    501: "Not Implemented",
    502: "Bad Gateway",
    503: "Service Unavailable",
    504: "Gateway Timeout",
}


class AgentplexError(Exception):
    """A failure: a problem document from the daemon, or one of the SDK's own (status 0 when
    there was no HTTP answer)."""

    code: str = ""
    """The ``<code>`` part of ``type``: ``session_not_found``, ``network_error``... (on a
    class, the code it stands for)."""

    type: str
    """``urn:sandbox-agent:error:<code>`` (or the problem's own ``type``)."""
    status: int
    """The HTTP status; 0 when there was no HTTP answer."""
    title: str
    detail: str | None
    agent: str | None
    session_id: str | None
    exit_code: int | None
    stderr: str | None
    instance: str | None
    extras: dict[str, Any]
    """Members of the problem document beyond the schema's fields."""
    problem: ProblemDetails | None
    """The problem document as the daemon sent it, when it sent one."""

    def __init__(
        self,
        type: str,
        status: int,
        title: str,
        detail: str | None = None,
        *,
        agent: str | None = None,
        session_id: str | None = None,
        exit_code: int | None = None,
        stderr: str | None = None,
        instance: str | None = None,
        extras: dict[str, Any] | None = None,
        problem: ProblemDetails | None = None,
    ) -> None:
        super().__init__(f"{title}: {detail}" if detail else title)
        self.type = type
        self.status = status
        self.title = title
        self.detail = detail
        self.agent = agent
        self.session_id = session_id
        self.exit_code = exit_code
        self.stderr = stderr
        self.instance = instance
        self.extras = dict(extras or {})
        self.problem = problem
        self.code = type[len(ERROR_TYPE_PREFIX) :] if type.startswith(ERROR_TYPE_PREFIX) else type

    @classmethod
    def create(
        cls,
        code: str,
        status: int,
        detail: str | None = None,
        **fields: Any,
    ) -> AgentplexError:
        """An error of ``code``, of the class registered for it."""
        error_class = ERROR_CLASSES.get(code, AgentplexError)
        title = (
            fields.pop("title", None) or _TITLES.get(status) or _CLIENT_TITLES.get(code) or f"HTTP {status}"
        )
        return error_class(ERROR_TYPE_PREFIX + code, status, title, detail, **fields)

    @classmethod
    def from_problem(cls, problem: ProblemDetails) -> AgentplexError:
        """The error of a problem document, of the class of its code."""
        code = problem.type[len(ERROR_TYPE_PREFIX) :] if problem.type.startswith(ERROR_TYPE_PREFIX) else ""
        error_class = ERROR_CLASSES.get(code, AgentplexError)
        return error_class(
            problem.type,
            problem.status,
            problem.title,
            problem.detail,
            agent=problem.agent,
            session_id=problem.session_id,
            exit_code=problem.exit_code,
            stderr=problem.stderr,
            instance=problem.instance,
            extras=dict(problem.model_extra or {}),
            problem=problem,
        )


def error_from_response(status: int, reason: str, body: bytes) -> AgentplexError:
    """The error of a non-2xx answer: its problem document, or ``unexpected_response``."""
    try:
        parsed = json.loads(body)
        if isinstance(parsed, dict) and {"type", "title", "status"} <= parsed.keys():
            return AgentplexError.from_problem(ProblemDetails.model_validate(parsed))
    except (ValueError, ValidationError):
        pass
    snippet = body.decode("utf-8", "replace").strip()[:500]
    return AgentplexError.create(
        "unexpected_response",
        status,
        f"HTTP {status} {reason} without a problem document" + (f": {snippet}" if snippet else ""),
        title=_TITLES.get(status) or reason or f"HTTP {status}",
    )


# The daemon's problem types (`ErrorType` in docs/openapi.json; tests/test_errors.py checks
# that every code has its class).
class InvalidRequestError(AgentplexError):
    """400 ``invalid_request``: a malformed body, field, query or id; a reply the adapter refused."""

    code = "invalid_request"


class UnsupportedAgentError(AgentplexError):
    """400/404 ``unsupported_agent``: no loaded adapter has that agent id."""

    code = "unsupported_agent"


class ModeNotSupportedError(AgentplexError):
    """400 ``mode_not_supported``: ``agentMode`` is not one of the agent's modes."""

    code = "mode_not_supported"


class TokenInvalidError(AgentplexError):
    """401 ``token_invalid``: a missing or wrong token."""

    code = "token_invalid"


class PermissionDeniedError(AgentplexError):
    """403 ``permission_denied``: the operating system refused a ``/v1/fs/*`` operation."""

    code = "permission_denied"


class AgentNotInstalledError(AgentplexError):
    """404 ``agent_not_installed``: the agent's binary is missing and the daemon may not install."""

    code = "agent_not_installed"


class SessionNotFoundError(AgentplexError):
    """404 ``session_not_found``: no session has that id."""

    code = "session_not_found"


class RequestNotFoundError(AgentplexError):
    """404 ``request_not_found``: no pending permission request or question has that id."""

    code = "request_not_found"


class NotFoundError(AgentplexError):
    """404 ``not_found``: no such route."""

    code = "not_found"


class MethodNotAllowedError(AgentplexError):
    """405 ``method_not_allowed``: the route exists, not with that method."""

    code = "method_not_allowed"


class SessionAlreadyExistsError(AgentplexError):
    """409 ``session_already_exists``: a session with that id exists (ended ones keep theirs)."""

    code = "session_already_exists"


class SessionEndedError(AgentplexError):
    """409 ``session_ended``: input to a session that has ended."""

    code = "session_ended"


class NotConfiguredError(AgentplexError):
    """409 ``not_configured``: the daemon runs without what the request needs."""

    code = "not_configured"


class PathNotFoundError(AgentplexError):
    """404 ``path_not_found``: a ``/v1/fs/*`` path does not exist."""

    code = "path_not_found"


class PathConflictError(AgentplexError):
    """409 ``path_conflict``: a ``/v1/fs/*`` target is in the way, or a directory is not empty."""

    code = "path_conflict"


class SpawnFailedError(AgentplexError):
    """400 ``spawn_failed``: a process could not be started; ``detail`` has the system's reason."""

    code = "spawn_failed"


class HostNotAllowedError(AgentplexError):
    """403 ``host_not_allowed``: the daemon does not answer to the ``Host`` the request named."""

    code = "host_not_allowed"


class CrossOriginRefusedError(AgentplexError):
    """403 ``cross_origin_refused``: without a token, a foreign web page tried to change state."""

    code = "cross_origin_refused"


class UnsupportedMediaTypeError(AgentplexError):
    """415 ``unsupported_media_type``: an archive upload not sent as ``application/x-tar``."""

    code = "unsupported_media_type"


class InvalidArchiveError(AgentplexError):
    """400 ``invalid_archive``: a session import whose body is not a session archive, or a
    damaged, truncated or too new one; nothing was imported."""

    code = "invalid_archive"


class SessionElsewhereError(AgentplexError):
    """409 ``session_elsewhere``: another daemon sharing the session database drives the
    session (its lease runs); ``detail`` names it."""

    code = "session_elsewhere"


class ProcessNotFoundError(AgentplexError):
    """404 ``process_not_found``: no process has that id."""

    code = "process_not_found"


class ProcessConflictError(AgentplexError):
    """409 ``process_conflict``: the process is not in a state for the request (no terminal,
    stdin closed, still running)."""

    code = "process_conflict"


class ProcessLimitReachedError(AgentplexError):
    """409 ``process_limit_reached``: the daemon holds ``--max-processes`` processes already."""

    code = "process_limit_reached"


class WindowNotFoundError(AgentplexError):
    """404 ``window_not_found``: no window of the desktop has that id, or none has the focus."""

    code = "window_not_found"


class RecordingNotFoundError(AgentplexError):
    """404 ``recording_not_found``: no recording of the desktop has that id."""

    code = "recording_not_found"


class DesktopNotRunningError(AgentplexError):
    """409 ``desktop_not_running``: the desktop is not started (``start_desktop``), or its X
    server died."""

    code = "desktop_not_running"


class DesktopConflictError(AgentplexError):
    """409 ``desktop_conflict``: a desktop start or stop is under way, or a recording is not in
    a state for the request (one runs already, none runs, it still records)."""

    code = "desktop_conflict"


class DesktopUnavailableError(AgentplexError):
    """501 ``desktop_unavailable``: a program the desktop needs is not installed (Xvfb,
    openbox, ffmpeg, xdg-open); ``detail`` says what to install."""

    code = "desktop_unavailable"


class DesktopFailedError(AgentplexError):
    """503 ``desktop_failed``: the desktop's X server or window manager failed; ``detail`` has
    the end of its log."""

    code = "desktop_failed"


class PayloadTooLargeError(AgentplexError):
    """413 ``payload_too_large``: a body or file larger than the daemon's limit."""

    code = "payload_too_large"


class StorageFullError(AgentplexError):
    """507 ``storage_full``: the disk holding the daemon's data dir is full; nothing was stored."""

    code = "storage_full"


class StorageUnavailableError(AgentplexError):
    """503 ``storage_unavailable``: the daemon's session database cannot be written; nothing was
    stored."""

    code = "storage_unavailable"


class InstallFailedError(AgentplexError):
    """500 ``install_failed``: installing an agent failed; ``detail`` names each source tried."""

    code = "install_failed"


class AgentProcessExitedError(AgentplexError):
    """500 ``agent_process_exited``: reserved (0.1.x code)."""

    code = "agent_process_exited"


class AdapterFailedError(AgentplexError):
    """500 ``adapter_failed``: the agent's adapter failed; the session has ended."""

    code = "adapter_failed"


class InternalError(AgentplexError):
    """500 ``internal``: an unexpected failure in the daemon."""

    code = "internal"


class StreamError(AgentplexError):
    """502 ``stream_error`` (reserved by the daemon); the SDK's when an event stream kept failing."""

    code = "stream_error"


class TimeoutError(AgentplexError, builtins.TimeoutError):
    """``timeout``: a call took longer than its time limit (status 0), ``start()`` gave up
    waiting for the listening line (status 0), or 504 (reserved by the daemon). Also a
    subclass of the built-in ``TimeoutError``, so ``except TimeoutError`` catches it either way."""

    code = "timeout"


# The SDK's own codes.
class NetworkError(AgentplexError):
    """``network_error`` (status 0): the request got no HTTP answer."""

    code = "network_error"


class UnexpectedResponseError(AgentplexError):
    """``unexpected_response``: an answer that is neither the expected body nor a problem document."""

    code = "unexpected_response"


class BinaryNotFoundError(AgentplexError):
    """``binary_not_found`` (status 0): ``start()`` found no ``agentplex`` (or ``sandbox-agent``)
    binary."""

    code = "binary_not_found"


class PortInUseError(AgentplexError):
    """``port_in_use`` (status 0): the ``port`` given to ``start()`` is taken."""

    code = "port_in_use"


class DaemonExitedError(AgentplexError):
    """``daemon_exited`` (status 0): the daemon ``start()`` ran exited before it was ready."""

    code = "daemon_exited"


ERROR_CLASSES: dict[str, type[AgentplexError]] = {
    cls.code: cls
    for cls in (
        InvalidRequestError,
        UnsupportedAgentError,
        ModeNotSupportedError,
        TokenInvalidError,
        PermissionDeniedError,
        AgentNotInstalledError,
        SessionNotFoundError,
        RequestNotFoundError,
        NotFoundError,
        MethodNotAllowedError,
        SessionAlreadyExistsError,
        SessionEndedError,
        NotConfiguredError,
        PathNotFoundError,
        PathConflictError,
        SpawnFailedError,
        HostNotAllowedError,
        CrossOriginRefusedError,
        UnsupportedMediaTypeError,
        InvalidArchiveError,
        SessionElsewhereError,
        ProcessNotFoundError,
        ProcessConflictError,
        ProcessLimitReachedError,
        WindowNotFoundError,
        RecordingNotFoundError,
        DesktopNotRunningError,
        DesktopConflictError,
        DesktopUnavailableError,
        DesktopFailedError,
        PayloadTooLargeError,
        InstallFailedError,
        AgentProcessExitedError,
        AdapterFailedError,
        StorageFullError,
        StorageUnavailableError,
        InternalError,
        StreamError,
        TimeoutError,
        NetworkError,
        UnexpectedResponseError,
        BinaryNotFoundError,
        PortInUseError,
        DaemonExitedError,
    )
}
"""The exception class of each code, the daemon's and the SDK's."""

_CLIENT_TITLES = {
    "network_error": "Network Error",
    "stream_error": "Stream Error",
    "binary_not_found": "Binary Not Found",
    "port_in_use": "Port In Use",
    "daemon_exited": "Daemon Exited",
    "timeout": "Timeout",
}

SandboxAgentError = AgentplexError
"""Deprecated: the 0.2 name of ``AgentplexError``."""
GatewayTimeoutError = TimeoutError
"""Deprecated: the 0.2 name of ``TimeoutError``."""

__all__ = [
    "ERROR_CLASSES",
    "ERROR_TYPE_PREFIX",
    "AgentplexError",
    "SandboxAgentError",
    "error_from_response",
    "AdapterFailedError",
    "AgentNotInstalledError",
    "AgentProcessExitedError",
    "BinaryNotFoundError",
    "DaemonExitedError",
    "DesktopConflictError",
    "DesktopFailedError",
    "DesktopNotRunningError",
    "DesktopUnavailableError",
    "GatewayTimeoutError",
    "InstallFailedError",
    "InternalError",
    "InvalidRequestError",
    "MethodNotAllowedError",
    "ModeNotSupportedError",
    "NetworkError",
    "NotConfiguredError",
    "NotFoundError",
    "PathConflictError",
    "PathNotFoundError",
    "PayloadTooLargeError",
    "StorageFullError",
    "StorageUnavailableError",
    "PermissionDeniedError",
    "PortInUseError",
    "ProcessConflictError",
    "ProcessLimitReachedError",
    "ProcessNotFoundError",
    "RecordingNotFoundError",
    "RequestNotFoundError",
    "SessionAlreadyExistsError",
    "SessionEndedError",
    "SessionNotFoundError",
    "SpawnFailedError",
    "HostNotAllowedError",
    "CrossOriginRefusedError",
    "UnsupportedMediaTypeError",
    "InvalidArchiveError",
    "SessionElsewhereError",
    "StreamError",
    "TimeoutError",
    "TokenInvalidError",
    "UnexpectedResponseError",
    "UnsupportedAgentError",
    "WindowNotFoundError",
]
