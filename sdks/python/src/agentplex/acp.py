"""The daemon's ACP endpoints as URLs, for an ACP client library to connect to: the remote
transport's ``/acp/{agent}`` and the reference transport's ``/v1/acp/{server_id}``."""

from __future__ import annotations

import urllib.parse

from ._core import seg


def _query(**values: str | None) -> str:
    """``?name=value&...`` of the values given, or nothing."""
    given = {name: value for name, value in values.items() if value is not None}
    return "?" + urllib.parse.urlencode(given) if given else ""


def remote_url(
    base_url: str,
    agent: str,
    *,
    model: str | None = None,
    agent_mode: str | None = None,
    permission_mode: str | None = None,
) -> str:
    """The endpoint of ``agent`` over ACP's remote transport (HTTP, or ``ws:`` for its WebSocket)."""
    query = _query(model=model, agentMode=agent_mode, permissionMode=permission_mode)
    return f"{base_url}/acp/{seg(agent)}{query}"


def server_url(
    base_url: str,
    server_id: str,
    agent: str,
    *,
    model: str | None = None,
    agent_mode: str | None = None,
    permission_mode: str | None = None,
) -> str:
    """The endpoint of ACP connection ``server_id`` over the reference's transport, naming its agent."""
    query = _query(agent=agent, model=model, agentMode=agent_mode, permissionMode=permission_mode)
    return f"{base_url}/v1/acp/{seg(server_id)}{query}"
