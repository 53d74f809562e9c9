"""Fixtures: the daemon binary (``$AGENTPLEX_BIN`` or ``$SANDBOX_AGENT_BIN``, default the
repository's ``target/debug/agentplex``, or the ``sandbox-agent`` of a build from before the
rename, built by ``cargo build -p agentplex``) and one daemon per test module."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentplex import LocalAgentplex, start

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="session")
def binary() -> str:
    """The daemon binary the tests run."""
    built = REPO / "target" / "debug"
    default = built / "agentplex" if (built / "agentplex").exists() else built / "sandbox-agent"
    path = os.environ.get("AGENTPLEX_BIN") or os.environ.get("SANDBOX_AGENT_BIN") or str(default)
    if not os.access(path, os.X_OK):
        pytest.fail(f"no daemon binary at {path}: run `cargo build -p agentplex` or set AGENTPLEX_BIN")
    return path


def daemon_env(home: Path) -> dict[str, str]:
    """The environment of a test daemon: a home of its own, no AGENTPLEX_* or SANDBOX_AGENT_*
    of the caller."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AGENTPLEX_", "SANDBOX_AGENT_"))}
    env["HOME"] = str(home)
    return env


@pytest.fixture(scope="module")
def client(binary: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalAgentplex]:
    """A client of a daemon of its own (``--ephemeral``) for the test module."""
    home = tmp_path_factory.mktemp("home")
    with start(binary, args=["--ephemeral"], data_dir=home / "data", env=daemon_env(home)) as local:
        yield local
