"""Fixtures: the daemon binary (``$SANDBOX_AGENT_BIN``, default ``target/debug/sandbox-agent``
of the repository, built by ``cargo build -p agentplex``) and one daemon per test module."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentplex import LocalClient, start

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="session")
def binary() -> str:
    """The daemon binary the tests run."""
    path = os.environ.get("SANDBOX_AGENT_BIN") or str(REPO / "target" / "debug" / "sandbox-agent")
    if not os.access(path, os.X_OK):
        pytest.fail(f"no daemon binary at {path}: run `cargo build -p agentplex` or set SANDBOX_AGENT_BIN")
    return path


def daemon_env(home: Path) -> dict[str, str]:
    """The environment of a test daemon: a home of its own, no SANDBOX_AGENT_* of the caller."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SANDBOX_AGENT_")}
    env["HOME"] = str(home)
    return env


@pytest.fixture(scope="module")
def client(binary: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalClient]:
    """A client of a daemon of its own (``--ephemeral``) for the test module."""
    home = tmp_path_factory.mktemp("home")
    with start(binary, args=["--ephemeral"], data_dir=home / "data", env=daemon_env(home)) as local:
        yield local
