"""agentplex: the Python client of the sandbox-agent daemon, one HTTP API over coding agents.

``Client`` (sync) and ``AsyncClient`` (asyncio) have the same methods; ``start()`` and
``start_async()`` run a local daemon. Models of every request, response and event are in
``agentplex.models`` (generated from the daemon's OpenAPI document); errors in
``agentplex.errors``.
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
from .session import Session

__version__ = "0.2.0"

__all__ = [
    "ERROR_CLASSES",
    "ERROR_TYPE_PREFIX",
    "AsyncClient",
    "AsyncFsBody",
    "AsyncLocalClient",
    "AsyncPermissionHandler",
    "AsyncQuestionHandler",
    "AsyncSession",
    "Client",
    "Daemon",
    "FsBody",
    "LocalClient",
    "MessageInput",
    "PermissionHandler",
    "PromptResult",
    "QuestionAnswer",
    "QuestionHandler",
    "SandboxAgentError",
    "Session",
    "errors",
    "find_binary",
    "models",
    "connect",
    "connect_async",
    "start",
    "start_async",
]
