"""agentplex: the Python client of the sandbox-agent daemon, one HTTP API over coding agents.

``Client`` (sync) and ``AsyncClient`` (asyncio) have the same methods (sessions, files,
processes and their terminals); ``start()`` and ``start_async()`` run a local daemon. Models
of every request, response and event are in ``agentplex.models`` (generated from the
daemon's OpenAPI document); errors in ``agentplex.errors``.
"""

from . import errors, models
from ._core import (
    AsyncPermissionHandler,
    AsyncQuestionHandler,
    MessageInput,
    PermissionHandler,
    PromptResult,
    QuestionAnswer,
    QuestionHandler,
)
from .aio import AsyncClient, AsyncFsBody
from .aio_session import AsyncSession
from .client import Client, FsBody
from .connect import connect, connect_async
from .errors import *  # noqa: F403
from .errors import ERROR_CLASSES, ERROR_TYPE_PREFIX, SandboxAgentError
from .generated.models import *  # noqa: F403
from .local import AsyncLocalClient, Daemon, LocalClient, find_binary, start, start_async
from .processes import ProcessLogEvent, decode_log_data
from .session import Session
from .terminal import AsyncProcessTerminal, ProcessTerminal

__version__ = "0.2.0"

__all__ = [
    "ERROR_CLASSES",
    "ERROR_TYPE_PREFIX",
    "AsyncClient",
    "AsyncFsBody",
    "AsyncLocalClient",
    "AsyncPermissionHandler",
    "AsyncProcessTerminal",
    "AsyncQuestionHandler",
    "AsyncSession",
    "Client",
    "Daemon",
    "FsBody",
    "LocalClient",
    "MessageInput",
    "PermissionHandler",
    "ProcessLogEvent",
    "ProcessTerminal",
    "PromptResult",
    "QuestionAnswer",
    "QuestionHandler",
    "SandboxAgentError",
    "Session",
    "errors",
    "find_binary",
    "models",
    "connect",
    "decode_log_data",
    "connect_async",
    "start",
    "start_async",
]
