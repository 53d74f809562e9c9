"""The public surface against docs/openapi.json and sdks/surface.json, the table the TypeScript
SDK's test/surface.test.ts reads too: every operation of the document has its methods (in
snake_case), the SDK has no public method the table does not list (so both SDKs have the same
ones), every error code has the class the table names, the defaults are the table's, and the
docs name every method."""

from __future__ import annotations

import inspect
import json
import re
from typing import Any

import pytest

import agentplex
from agentplex import Agentplex as Sync
from agentplex import AsyncAgentplex, AsyncSession, Session, _core

from .conftest import REPO

SURFACE: dict[str, Any] = json.loads((REPO / "sdks" / "surface.json").read_text())
OPENAPI: dict[str, Any] = json.loads((REPO / "docs" / "openapi.json").read_text())
DEPRECATED: dict[str, str] = SURFACE["deprecated"]["python"]
IDIOMS: dict[str, list[str]] = SURFACE["idioms"]["python"]


def snake(name: str) -> str:
    """A TypeScript name in snake_case: every capital becomes ``_`` and its lower case."""
    return re.sub(r"[A-Z]", lambda capital: "_" + capital.group(0).lower(), name)


def listed(on: str) -> list[str]:
    """The methods the table lists on the client or the session, in snake_case, each once (a URL
    builder serves several routes)."""
    routes = [name for methods in SURFACE["operations"].values() for name in methods.get(on, [])]
    return sorted({snake(name) for name in [*routes, *SURFACE["helpers"][on]]})


def public_methods(cls: type, idioms: list[str]) -> list[str]:
    """The public methods of a class, without the deprecated aliases and the language's own."""
    names = [name for name in dir(cls) if not name.startswith("_") and callable(getattr(cls, name))]
    return sorted(name for name in names if name not in DEPRECATED and name not in idioms)


def test_covers_every_operation_of_the_openapi_document() -> None:
    ids = [
        op["operationId"] for item in OPENAPI["paths"].values() for op in item.values() if "operationId" in op
    ]
    assert sorted(SURFACE["operations"]) == sorted(ids)
    for operation, methods in SURFACE["operations"].items():
        assert methods.get("client", []) + methods.get("session", []), operation


@pytest.mark.parametrize(("cls", "idioms"), [(Sync, "client"), (AsyncAgentplex, "asyncClient")])
def test_the_clients_have_exactly_the_methods_listed(cls: type, idioms: str) -> None:
    assert public_methods(cls, IDIOMS[idioms]) == listed("client")


@pytest.mark.parametrize("cls", [Session, AsyncSession])
def test_the_sessions_have_exactly_the_methods_listed(cls: type) -> None:
    assert public_methods(cls, []) == listed("session")


def test_the_async_client_awaits_what_makes_requests() -> None:
    local = {
        "session",
        "build_process_terminal_web_socket_url",
        "build_desktop_stream_web_socket_url",
        "acp_url",
        "acp_server_url",
    }
    for name in listed("client"):
        method = getattr(AsyncAgentplex, name)
        awaited = inspect.iscoroutinefunction(method) or inspect.isasyncgenfunction(method)
        assert awaited == (name not in local), name


def test_the_module_functions() -> None:
    for name in [*map(snake, SURFACE["helpers"]["module"]), *IDIOMS["module"]]:
        assert callable(getattr(agentplex, name)), name


def test_every_error_code_has_the_class_listed() -> None:
    assert sorted(agentplex.ERROR_CLASSES) == sorted(SURFACE["errors"])
    assert set(OPENAPI["components"]["schemas"]["ErrorType"]["enum"]) <= set(SURFACE["errors"])
    for code, name in SURFACE["errors"].items():
        cls = agentplex.ERROR_CLASSES[code]
        assert cls.__name__ == name and cls.code == code
        assert getattr(agentplex.errors, name) is cls and getattr(agentplex, name) is cls
        assert isinstance(agentplex.AgentplexError.create(code, 0), cls)
    assert getattr(agentplex, SURFACE["baseError"]) is agentplex.AgentplexError
    # What a time limit raises is caught by `except TimeoutError` of either kind.
    assert issubclass(agentplex.errors.TimeoutError, TimeoutError)


def test_the_0_2_names_are_aliases_of_the_new_ones() -> None:
    holders = [agentplex, agentplex.errors, Sync, AsyncAgentplex]
    for old, new in DEPRECATED.items():
        holder = next(h for h in holders if hasattr(h, old))
        assert getattr(holder, old) is getattr(holder, new), old


def _default(function: Any, name: str) -> Any:
    return inspect.signature(function).parameters[name].default


def test_the_defaults_are_the_ones_listed() -> None:
    defaults = SURFACE["defaults"]
    for cls in (Sync, AsyncAgentplex):
        assert _default(cls, "timeout") == defaults["timeoutSeconds"]
        assert _default(cls, "max_retries") == defaults["maxRetries"]
        assert _default(cls, "retry_delay") == defaults["retryDelaySeconds"]
    assert sorted(_core.RETRY_STATUSES) == defaults["retryStatuses"]
    streams = [
        getattr(cls, name) for cls in (Session, AsyncSession) for name in ("events", "stream", "prompt")
    ] + [Sync.follow_process_logs, AsyncAgentplex.follow_process_logs]
    for stream in streams:
        assert _default(stream, "max_retries") == defaults["streamMaxRetries"], stream
        assert _default(stream, "retry_delay") == defaults["streamRetryDelaySeconds"], stream
        assert _default(stream, "idle_timeout") == defaults["idleTimeoutSeconds"], stream
    for start in (agentplex.start, agentplex.start_async):
        assert _default(start, "timeout") == defaults["startTimeoutSeconds"]
        assert _default(start, "request_timeout") == defaults["timeoutSeconds"]


@pytest.mark.parametrize("doc", ["docs/sdk-python.md", "sdks/python/README.md"])
def test_the_docs_show_every_method(doc: str) -> None:
    text = (REPO / doc).read_text()
    names = [*listed("client"), *listed("session"), *map(snake, SURFACE["helpers"]["module"])]
    # A call or a signature (`name(`), or the name in backquotes.
    missing = [name for name in names if not re.search(rf"(?<!\w){name}\(|`{name}`", text)]
    assert missing == []
