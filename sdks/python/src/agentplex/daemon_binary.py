"""What ``start()`` needs to know about the daemon's binary: where it is, the environment it
reads its token from, and the line it prints once it listens. Both names are understood:
``agentplex``, and ``sandbox-agent`` (0.2 and older binaries, and a second name of newer ones).
The same rules as the TypeScript SDK's ``start()``."""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Mapping

from .errors import AgentplexError

_LISTENING = re.compile(r"\b(?:agentplex|sandbox-agent) listening on (http://[^\s\"]+)")
"""The daemon's listening line (docs/cli.md, "The listening line"), found anywhere in the line,
so the line of ``--log-format json`` (a JSON object whose message it is) counts too."""

BINARY_VARIABLES = ("AGENTPLEX_BIN", "SANDBOX_AGENT_BIN")
"""The variables naming the binary, newest first."""

BINARY_NAMES = ("agentplex", "sandbox-agent")
"""The binary's names on PATH, newest first (``sandbox-agent``: 0.2 and older)."""

_TOKEN_VARIABLE = re.compile(r"^(AGENTPLEX|SANDBOX_AGENT)_TOKEN(_FILE)?$")
"""The token variables of both names (``--token``'s and ``--token-file``'s)."""


def listening_address(line: str) -> str | None:
    """The address in the daemon's listening line, or None for another line."""
    match = _LISTENING.search(line)
    return match.group(1) if match else None


def find_binary(binary: str | None = None) -> str:
    """The binary to run: ``binary``, else ``$AGENTPLEX_BIN``, else ``$SANDBOX_AGENT_BIN``,
    else ``agentplex`` on PATH, else ``sandbox-agent`` on PATH."""
    variable = next((name for name in BINARY_VARIABLES if os.environ.get(name)), None)
    given = binary or (os.environ[variable] if variable else None)
    if given:
        if not (os.path.isfile(given) and os.access(given, os.X_OK)):
            source = "binary" if binary else variable
            raise AgentplexError.create(
                "binary_not_found", 0, f"{given} ({source}) is not an executable file"
            )
        return given
    for name in BINARY_NAMES:
        found = shutil.which(name)
        if found is not None:
            return found
    raise AgentplexError.create(
        "binary_not_found",
        0,
        "no agentplex binary: pass binary=, set AGENTPLEX_BIN, or put agentplex on PATH",
    )


def daemon_env(base: Mapping[str, str], binary: str, token: str) -> dict[str, str]:
    """The daemon's environment: ``base`` with the token in ``AGENTPLEX_TOKEN`` (by
    environment, not argv, so it does not show in ``ps``), and in ``SANDBOX_AGENT_TOKEN`` too
    when the binary is named ``sandbox-agent`` (0.2 and older binaries read only that one).
    Token variables of ``base`` are left out: the daemon would refuse a token given twice."""
    env = {name: value for name, value in base.items() if not _TOKEN_VARIABLE.match(name)}
    env["AGENTPLEX_TOKEN"] = token
    if os.path.basename(binary).lower().startswith("sandbox-agent"):
        env["SANDBOX_AGENT_TOKEN"] = token
    return env
