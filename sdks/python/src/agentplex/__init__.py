"""agentplex: the Python client of the agentplex daemon, one HTTP API over coding agents.

``Agentplex`` (sync) and ``AsyncAgentplex`` (asyncio) have the same methods (sessions, files,
processes and their terminals, the desktop), the TypeScript SDK's in snake_case (sdks/surface.json lists
them); ``start()`` and ``start_async()`` run a local daemon, ``connect()`` and
``connect_async()`` check a running one. Models of every request, response and event are in
``agentplex.models`` (generated from the daemon's OpenAPI document); errors in
``agentplex.errors``. The 0.2 names (``Client``, ``AsyncClient``, ``LocalClient``,
``AsyncLocalClient``, ``SandboxAgentError``, ``GatewayTimeoutError``, ``decode_log_data``)
are deprecated aliases of the new ones.
"""

from . import errors, models
from ._core import (
    AsyncPermissionHandler,
    AsyncQuestionHandler,
    CallOptions,
    MessageInput,
    PermissionHandler,
    PromptResult,
    QuestionAnswer,
    QuestionHandler,
)
from .aio import AsyncAgentplex, AsyncClient, AsyncFsBody
from .aio_session import AsyncSession
from .client import Agentplex, Client, FsBody
from .connect import connect, connect_async
from .daemon_binary import find_binary
from .errors import *  # noqa: F403
from .errors import ERROR_CLASSES, ERROR_TYPE_PREFIX, AgentplexError, SandboxAgentError
from .generated.models import *  # noqa: F403
from .install import InstallEvent, InstallProgress, InstallResult
from .local import (
    AsyncLocalAgentplex,
    AsyncLocalClient,
    Daemon,
    LocalAgentplex,
    LocalClient,
    start,
    start_async,
)
from .processes import ProcessLogEvent, decode_log_data, decode_process_log_data
from .session import Session
from .terminal import AsyncProcessTerminal, ProcessTerminal

__version__ = "0.3.0"

__all__ = [
    "ERROR_CLASSES",
    "ERROR_TYPE_PREFIX",
    "Agentplex",
    "AgentplexError",
    "AsyncAgentplex",
    "AsyncClient",
    "AsyncFsBody",
    "AsyncLocalAgentplex",
    "AsyncLocalClient",
    "AsyncPermissionHandler",
    "AsyncProcessTerminal",
    "AsyncQuestionHandler",
    "AsyncSession",
    "CallOptions",
    "Client",
    "Daemon",
    "FsBody",
    "InstallEvent",
    "InstallProgress",
    "InstallResult",
    "LocalAgentplex",
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
    "connect",
    "connect_async",
    "decode_log_data",
    "decode_process_log_data",
    "errors",
    "find_binary",
    "models",
    "start",
    "start_async",
]
